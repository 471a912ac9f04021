// Readwise Reader's CSV export: Title,URL,Document tags,Saved date,Reading progress,Location,Seen (names vary in
// case and wording between versions, so columns are found by several names). Location is new, later, shortlist,
// archive or feed; shortlist is Reader's favourite. Tags come as a Python list (['a', 'b']) or comma-separated.
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, statusFor } from "./collect.ts";
import { cell, findColumn, readCsv, reportCut } from "./csv.ts";
import { ImportFileError } from "./errors.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { splitTagText } from "./tags.ts";

export function parseReadwiseCsv(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const table = readCsv(bytes);
  const h = table.header;
  const url = findColumn(h, "url", "source url", "source_url");
  if (url === undefined) throw new ImportFileError("unsupported_format", "not a Readwise Reader CSV export: no URL column");
  const title = findColumn(h, "title");
  const tags = findColumn(h, "document tags", "tags", "document_tags");
  const saved = findColumn(h, "saved date", "saved at", "saved_at", "created at", "created_at");
  const location = findColumn(h, "location");
  const note = findColumn(h, "document note", "notes", "note");
  const out = new EntryCollector(limits, "import:readwise");
  for (const row of table.rows) {
    if (!out.more()) break;
    const place = cell(row, location).trim().toLowerCase();
    const state = statusFor(place === "archive", place === "shortlist");
    out.add(
      row.index,
      {
        url: cell(row, url),
        title: cell(row, title),
        createdAt: cell(row, saved),
        tags: [...splitTagText(cell(row, tags), ","), ...state.tags],
        status: state.status,
        note: cell(row, note),
      },
      `line ${row.line}`,
    );
  }
  reportCut(table, out);
  return out.result();
}
