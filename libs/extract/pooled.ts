// What the main thread needs of extraction: the pooled extractor and its error, without the pipeline's packages.
export { ExtractError, type ExtractErrorReason } from "./error.ts";
export { poolExtractor, type Extractor, type ExtractorLimits } from "./extractor.ts";
export type { ExtractOptions, Extraction, ItemContent, MediaEntry } from "./types.ts";
