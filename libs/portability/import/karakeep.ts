// Karakeep's (formerly Hoarder) JSON export: {bookmarks: [{createdAt, title, tags, lists (list ids), content:
// {type: "link", url} | {type: "text", text} | null, note, archived, favourited?}], lists: [{id, name, parentId,
// type}]}. Only link bookmarks are pages to save; text notes and uploaded files (exported with no content) are
// reported. A bookmark's lists become collections named by their path, as bookmark folders are.
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, isTrue, statusFor } from "./collect.ts";
import { collectJsonEntries, isRecord, strings, type JsonRecord } from "./json-entries.ts";
import { memberOf, readJsonEntries, recoverArray } from "./json.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { folderPath } from "./netscape.ts";

export function parseKarakeepJson(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const read = readJsonEntries(bytes, "bookmarks");
  const lists = read.document === undefined ? recoverArray(read.text, "lists")?.items : memberOf(read.document, "lists");
  const listNames = listPaths(Array.isArray(lists) ? lists : []);
  const out = new EntryCollector(limits, "import:karakeep");
  collectJsonEntries(read, out, (bookmark) => {
    const content = isRecord(bookmark.content) ? bookmark.content : undefined;
    const kind = content?.type;
    const hint = typeof bookmark.title === "string" ? bookmark.title : undefined;
    if (kind === "text") return { skip: "a text note, not a link: only links are imported", hint };
    if (kind !== "link") {
      return { skip: "an uploaded file or other non-link bookmark (exported without a URL): only links are imported", hint };
    }
    const state = statusFor(isTrue(bookmark.archived), isTrue(bookmark.favourited ?? bookmark.favorited));
    const collections = strings(bookmark.lists).flatMap((id) => listNames.get(id) ?? []);
    return {
      url: content?.url,
      title: bookmark.title,
      createdAt: bookmark.createdAt,
      tags: [...strings(bookmark.tags), ...state.tags],
      collections,
      status: state.status,
      note: bookmark.note,
    };
  });
  return out.result();
}

/** Each manual list's name with its parents' ("Reading / Tech"); smart lists are queries, not collections. */
function listPaths(lists: unknown[]): Map<string, string> {
  const byId = new Map<string, JsonRecord>();
  for (const list of lists) {
    if (isRecord(list) && typeof list.id === "string") byId.set(list.id, list);
  }
  const paths = new Map<string, string>();
  for (const [id, list] of byId) {
    if (list.type === "smart") continue;
    const names: string[] = [];
    const seen = new Set<string>();
    for (let at: JsonRecord | undefined = list; at && !seen.has(at.id as string); ) {
      seen.add(at.id as string);
      if (typeof at.name === "string") names.unshift(at.name);
      at = typeof at.parentId === "string" ? byId.get(at.parentId) : undefined;
    }
    const path = folderPath(names);
    if (path !== undefined) paths.set(id, path);
  }
  return paths;
}
