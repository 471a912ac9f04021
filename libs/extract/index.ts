// @trove/extract: saved web pages (HTML, plain text, Markdown) to ItemContent v2 and Markdown. extractHtml and
// extractText run in the calling thread; poolExtractor runs the same pipeline on a worker pool with a deadline.
export { extractHtml, extractText } from "./extract.ts";
export { contentCapBytes } from "./content.ts";
export { pageElementLimit } from "./document.ts";
export { ExtractError, type ExtractErrorReason } from "./error.ts";
export { poolExtractor, type Extractor, type ExtractorLimits } from "./extractor.ts";
export { extractTask, extractTaskName, type ExtractTaskInput } from "./task.ts";
export type { ExtractOptions, Extraction, ItemContent, MediaEntry } from "./types.ts";
