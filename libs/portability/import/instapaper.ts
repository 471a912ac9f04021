// Instapaper's CSV export: URL,Title,Selection,Folder,Timestamp (newer ones add Tags as a JSON list). The Folder
// is the item's place: Unread, Archive, Starred, or one of the user's folders (which becomes a collection).
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, statusFor, type HighlightDraft } from "./collect.ts";
import { cell, findColumn, readCsv, reportCut } from "./csv.ts";
import { ImportFileError } from "./errors.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { splitTagText } from "./tags.ts";

export function parseInstapaperCsv(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const table = readCsv(bytes);
  const h = table.header;
  const url = findColumn(h, "url");
  if (url === undefined) throw new ImportFileError("unsupported_format", "not an Instapaper CSV export: no URL column");
  const title = findColumn(h, "title");
  const selection = findColumn(h, "selection");
  const folder = findColumn(h, "folder");
  const timestamp = findColumn(h, "timestamp");
  const tags = findColumn(h, "tags");
  const out = new EntryCollector(limits, "import:instapaper");
  for (const row of table.rows) {
    if (!out.more()) break;
    const place = cell(row, folder).trim();
    const key = place.toLowerCase();
    const state = statusFor(key === "archive", key === "starred");
    const isUserFolder = place !== "" && !["unread", "archive", "starred"].includes(key);
    const quote = cell(row, selection).trim();
    const highlights: HighlightDraft[] = quote === "" ? [] : [{ text: quote, startOffset: null, endOffset: null }];
    out.add(
      row.index,
      {
        url: cell(row, url),
        title: cell(row, title),
        createdAt: cell(row, timestamp),
        tags: [...splitTagText(cell(row, tags), ","), ...state.tags],
        collections: isUserFolder ? [place] : [],
        status: state.status,
        highlights,
      },
      `line ${row.line}`,
    );
  }
  reportCut(table, out);
  return out.result();
}
