// What the exports service sends the import-parsing task, apart from the task: the main thread imports this, never
// the parsers (ZIP, CSV, HTML and YAML readers load in the worker threads that run them).
import type { ImportFormat } from "@trove/contracts";
import type { ImportLimits } from "./limits.ts";

export const importParseTaskName = "portability.importParse";

export interface ImportParseTaskInput {
  bytes: Uint8Array;
  format: ImportFormat;
  limits?: Partial<ImportLimits>;
}
