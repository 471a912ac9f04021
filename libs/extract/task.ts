// Extraction as a worker-pool task: the registry script (libs/host/tasks.ts) serves it under `extractTaskName`,
// and the pooled extractor (extractor.ts) sends it pages. Input and output cross threads by structured clone.
import { extractHtml, extractText } from "./extract.ts";
import type { ExtractTaskInput } from "./task-input.ts";
import type { Extraction } from "./types.ts";

export { extractTaskName, type ExtractTaskInput } from "./task-input.ts";

/** The whole pipeline for one page (parse, budget, clean, Readability, Markdown, cap), run in a worker thread. */
export function extractTask(input: ExtractTaskInput): Extraction {
  return input.kind === "html" ? extractHtml(input.body, input.opts) : extractText(input.body, input.opts);
}
