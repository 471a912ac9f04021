// Data portability formats: import parsers (run on the worker pool) and export writers (streamed).
export * from "./import/index.ts";
export { exportFormats, type ExportFormat, type ExportWriter, type ExportWriterOptions } from "./export/writer.ts";
export { exportWriter } from "./export/formats.ts";
export { MarkdownZipWriter, itemFileName } from "./export/markdown-zip.ts";
export { escapeMarkers, itemFrontmatter, itemMarkdown, markers, unescapeMarkers } from "./export/item-markdown.ts";
export { JsonWriter, jsonExportFormat, jsonExportVersion } from "./export/json-writer.ts";
export { CsvWriter, csvCell, csvColumns, csvRow } from "./export/csv-writer.ts";
export { slugFileName, slugBytes, type SlugFileNameOptions } from "./export/file-name.ts";
export { ZipWriter } from "./export/zip-writer.ts";
