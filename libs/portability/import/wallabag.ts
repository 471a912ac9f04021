// wallabag's JSON export: an array of entries {url, title, content (HTML), created_at, is_archived, is_starred,
// tags (names or {label}), annotations [{quote, text, created_at, ranges}]}. An annotation's quote is the highlight
// and its text the note on it; ranges are XPath-based and not portable, so offsets stay unknown.
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, isTrue, statusFor, type HighlightDraft } from "./collect.ts";
import { collectJsonEntries, isRecord } from "./json-entries.ts";
import { readJsonEntries } from "./json.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { tagNames } from "./tags.ts";

export function parseWallabagJson(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const read = readJsonEntries(bytes, "entries");
  const out = new EntryCollector(limits, "import:wallabag");
  collectJsonEntries(read, out, (entry) => {
    const archived = isTrue(entry.is_archived);
    const state = statusFor(archived, isTrue(entry.is_starred));
    return {
      url: entry.url ?? entry.given_url,
      title: entry.title,
      createdAt: entry.created_at,
      processedAt: archived ? entry.archived_at : undefined,
      tags: [...tagNames(entry.tags), ...state.tags],
      status: state.status,
      contentHtml: entry.content,
      highlights: annotations(entry.annotations),
    };
  });
  return out.result();
}

function annotations(value: unknown): HighlightDraft[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((a) => ({
    text: typeof a.quote === "string" ? a.quote.trim() : undefined,
    note: a.text,
    createdAt: a.created_at,
  }));
}
