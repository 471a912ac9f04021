// The JSON export: {"format":"trove.items","version":1,"exportedAt":…,"items":[…]}, written one record a line
// as the pages come, never built whole.
import type { ExportRecord } from "@trove/contracts";
import { portableRecord } from "./record.ts";
import { TextWriter } from "./text-writer.ts";
import type { ExportWriterOptions } from "./writer.ts";

export const jsonExportFormat = "trove.items";
export const jsonExportVersion = 1;

export class JsonWriter extends TextWriter {
  readonly format = "json";
  readonly contentType = "application/json";
  readonly extension = "json";

  constructor(private readonly opts: ExportWriterOptions) {
    super();
    const head = { format: jsonExportFormat, version: jsonExportVersion, exportedAt: opts.exportedAt };
    this.begin(`${JSON.stringify(head).slice(0, -1)},"items":[`);
  }

  protected recordText(r: ExportRecord, index: number) {
    return `${index === 0 ? "\n" : ",\n"}${JSON.stringify(portableRecord(r, this.opts))}`;
  }

  protected endText() {
    return this.itemCount === 0 ? "]}\n" : "\n]}\n";
  }
}
