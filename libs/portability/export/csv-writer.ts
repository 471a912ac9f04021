// The CSV export: RFC 4180 (CRLF line ends; a field holding `,` `"` CR or LF quoted, quotes doubled), a header
// row first, one row per item. Made for spreadsheets, so every cell that a spreadsheet would run as a formula is
// neutralised; tags and collections are joined with `|` (a name holding `|` cannot be told apart: the JSON export
// is the lossless one).
import type { ExportRecord } from "@trove/contracts";
import { isoTime } from "./record.ts";
import { TextWriter } from "./text-writer.ts";
import type { ExportWriterOptions } from "./writer.ts";

interface Column {
  name: string;
  cell(r: ExportRecord): string;
}

const time = (s: number | null) => (s === null ? "" : isoTime(s));

const baseColumns: Column[] = [
  { name: "id", cell: (r) => r.id },
  { name: "url", cell: (r) => r.url },
  { name: "title", cell: (r) => r.title },
  { name: "status", cell: (r) => r.status },
  { name: "tags", cell: (r) => r.tags.join("|") },
  { name: "collections", cell: (r) => r.collections.join("|") },
  { name: "created_at", cell: (r) => time(r.createdAt) },
  { name: "updated_at", cell: (r) => time(r.updatedAt) },
  { name: "processed_at", cell: (r) => time(r.processedAt) },
  { name: "source", cell: (r) => r.source ?? "" },
];
const noteColumn: Column = { name: "note", cell: (r) => r.note ?? "" };
const highlightsColumn: Column = { name: "highlights_count", cell: (r) => String(r.highlights.length) };
const contentColumn: Column = { name: "content_markdown", cell: (r) => r.contentMarkdown ?? "" };

export const csvColumns = (opts: Pick<ExportWriterOptions, "includeContent" | "includeNotes">): Column[] => [
  ...baseColumns,
  ...(opts.includeNotes ? [noteColumn] : []),
  highlightsColumn,
  ...(opts.includeContent ? [contentColumn] : []),
];

/**
 * What a spreadsheet may run as a formula (OWASP, CSV injection): a cell starting with `=`, `+`, `-` or `@`, also
 * after leading spaces or line ends (spreadsheets drop those before reading the cell), or with a tab or CR.
 */
const formulaStart = /^(?:[\t\r]|\s*[=+\-@])/;

/** The cell with a leading `'` when it could run as a formula, so a spreadsheet shows it as text; then RFC 4180 quoting. */
export function csvCell(value: string): string {
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvRow = (cells: string[]): string => `${cells.map(csvCell).join(",")}\r\n`;

export class CsvWriter extends TextWriter {
  readonly format = "csv";
  readonly contentType = "text/csv; charset=utf-8";
  readonly extension = "csv";
  private readonly columns: Column[];

  constructor(opts: ExportWriterOptions) {
    super();
    this.columns = csvColumns(opts);
    this.begin(csvRow(this.columns.map((c) => c.name)));
  }

  protected recordText(r: ExportRecord) {
    return csvRow(this.columns.map((c) => c.cell(r)));
  }

  protected endText() {
    return "";
  }
}
