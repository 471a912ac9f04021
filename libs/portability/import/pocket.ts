// Pocket's CSV export (2024-2025): title,url,time_added,tags,status (some versions add cursor or other columns,
// so columns are found by name). Tags are "|"-separated; status is unread or archive; time_added is Unix seconds.
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, isTrue, statusFor } from "./collect.ts";
import { cell, findColumn, readCsv, reportCut } from "./csv.ts";
import { ImportFileError } from "./errors.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { splitTagText } from "./tags.ts";

export function parsePocketCsv(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const table = readCsv(bytes);
  const h = table.header;
  const url = findColumn(h, "url", "given_url", "resolved_url");
  if (url === undefined) throw new ImportFileError("unsupported_format", "not a Pocket CSV export: no url column");
  const title = findColumn(h, "title", "given_title", "resolved_title");
  const added = findColumn(h, "time_added", "added", "date_added");
  const tags = findColumn(h, "tags");
  const status = findColumn(h, "status");
  const favourite = findColumn(h, "favorite", "favourite", "starred");
  const out = new EntryCollector(limits, "import:pocket");
  for (const row of table.rows) {
    if (!out.more()) break;
    const state = statusFor(cell(row, status).trim().toLowerCase() === "archive", isTrue(cell(row, favourite)));
    out.add(
      row.index,
      {
        url: cell(row, url),
        title: cell(row, title),
        createdAt: cell(row, added),
        tags: [...splitTagText(cell(row, tags), "|"), ...state.tags],
        status: state.status,
      },
      `line ${row.line}`,
    );
  }
  reportCut(table, out);
  return out.result();
}
