// CSV exports (Pocket, Instapaper, Readwise) read with csv-parse: quoted commas, quotes and newlines, a BOM, ragged
// rows. A file cut inside a quoted cell keeps every row before the cut; the cut row is reported.
import { parse } from "csv-parse/sync";
import { ImportFileError } from "./errors.ts";
import { decodeText } from "./text.ts";

export interface CsvRow {
  /** 0-based position among the data rows (the header not counted). */
  index: number;
  /** 1-based line where the row starts. */
  line: number;
  cells: string[];
}

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
  /** Set when the file could not be read to its end. */
  truncated?: { reason: string; line: number };
}

interface RecordInfo {
  record: string[];
  info: { lines: number; empty_lines: number };
}

export function readCsv(bytes: Uint8Array): CsvTable {
  const records: { cells: string[]; line: number }[] = [];
  let lastLine = 0;
  let lastEmpty = 0;
  let truncated: CsvTable["truncated"];
  try {
    parse(decodeText(bytes), {
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      // Rows are kept here as they are read, so a parse error later in the file loses nothing before it.
      on_record: (value: unknown) => {
        const { record, info } = value as RecordInfo;
        records.push({ cells: record, line: lastLine + 1 + (info.empty_lines - lastEmpty) });
        lastLine = info.lines;
        lastEmpty = info.empty_lines;
        return null;
      },
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("CSV_")) throw err;
    const reason =
      code === "CSV_QUOTE_NOT_CLOSED"
        ? "the file ends inside a quoted cell (cut short?)"
        : `the file could not be read past line ${lastLine + 1} (${(err as Error).message})`;
    truncated = { reason, line: lastLine + 1 };
  }
  const [head, ...rest] = records;
  if (!head) throw new ImportFileError("corrupt_file", "the CSV file has no header row");
  const rows = rest.map((r, index) => ({ index, line: r.line, cells: r.cells }));
  return truncated ? { header: head.cells, rows, truncated } : { header: head.cells, rows };
}

/** The position of the first header cell matching one of `names` (trimmed, case-insensitive). */
export function findColumn(header: readonly string[], ...names: string[]): number | undefined {
  const normalised = header.map((h) => h.trim().toLowerCase());
  for (const name of names) {
    const at = normalised.indexOf(name.toLowerCase());
    if (at >= 0) return at;
  }
  return undefined;
}

/** The cell at `column`, "" when the column or the cell is missing. */
export function cell(row: CsvRow, column: number | undefined): string {
  return column === undefined ? "" : (row.cells[column] ?? "");
}

/** Reports the row a cut file ended in, and marks the result truncated. */
export function reportCut(table: CsvTable, out: { fail(index: number, reason: string, hint?: string): void; truncate(reason: string): void }): void {
  if (!table.truncated) return;
  out.fail(table.rows.length, table.truncated.reason, `line ${table.truncated.line}`);
  out.truncate(table.truncated.reason);
}
