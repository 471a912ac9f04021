// Data portability formats: import parsers (run on the worker pool) and export writers (streamed).
export { slugFileName, slugBytes, type SlugFileNameOptions } from "./export/file-name.ts";
export { ZipWriter } from "./export/zip-writer.ts";
