// The writer of each export format.
import { CsvWriter } from "./csv-writer.ts";
import { JsonWriter } from "./json-writer.ts";
import { MarkdownZipWriter } from "./markdown-zip.ts";
import type { ExportFormat, ExportWriter, ExportWriterOptions } from "./writer.ts";

export function exportWriter(format: ExportFormat, opts: ExportWriterOptions): ExportWriter {
  switch (format) {
    case "markdown_zip":
      return new MarkdownZipWriter(opts);
    case "json":
      return new JsonWriter(opts);
    case "csv":
      return new CsvWriter(opts);
  }
}
