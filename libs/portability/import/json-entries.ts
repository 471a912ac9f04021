// The loop the JSON formats share: each element of the entries array is checked to be an object before the
// format reads it; a cut file reports the lost element and marks the result truncated.
import type { EntryCollector, EntryDraft } from "./collect.ts";
import { unreadable, type JsonEntries } from "./json.ts";

export type JsonRecord = Record<string, unknown>;

/** What to do with one record: a draft to add, or the reason it is not imported (and what identifies it). */
export type RecordReading = EntryDraft | { skip: string; hint?: string };

/** Adds each record of `read` to `out`; `firstIndex`: the position of the first (several files make one list). */
export function collectJsonEntries(
  read: JsonEntries,
  out: EntryCollector,
  toDraft: (record: JsonRecord) => RecordReading,
  firstIndex = 0,
): void {
  for (const [at, item] of read.items.entries()) {
    const index = firstIndex + at;
    if (!out.more()) break;
    if (item === unreadable) {
      out.fail(index, "not valid JSON");
      continue;
    }
    if (!isRecord(item)) {
      out.fail(index, "not an entry (expected a JSON object)");
      continue;
    }
    const reading = toDraft(item);
    if ("skip" in reading) out.fail(index, reading.skip, reading.hint);
    else out.add(index, reading);
  }
  if (read.truncated !== undefined) {
    out.fail(firstIndex + read.items.length, "cut off at the end of the file");
    out.truncate(read.truncated);
  }
}

export function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The strings of an array (other values dropped); [] when not an array. */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
