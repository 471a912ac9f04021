// What the pooled extractor sends the "extract" task, apart from the task itself: the main thread imports this,
// never the pipeline (linkedom, Readability, Turndown stay in the worker threads that run it).
import type { ExtractOptions } from "./types.ts";

export const extractTaskName = "extract";

export interface ExtractTaskInput {
  kind: "html" | "text";
  body: string;
  opts: ExtractOptions;
}
