// Trove's own JSON export: {"items": [ExportRecord, ...]} (other top-level fields, such as exportedAt and format,
// are ignored). Records map field for field; each keeps its own source.
import type { ImportParseResult, PortableStatus } from "@trove/contracts";
import { EntryCollector, type HighlightDraft } from "./collect.ts";
import { collectJsonEntries, isRecord, strings } from "./json-entries.ts";
import { readJsonEntries } from "./json.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";

export function parseTroveJson(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const read = readJsonEntries(bytes, "items");
  const out = new EntryCollector(limits);
  collectJsonEntries(read, out, (record) => ({
    url: record.url,
    title: record.title,
    status: portableStatus(record.status),
    tags: strings(record.tags),
    collections: strings(record.collections),
    createdAt: record.createdAt,
    processedAt: record.processedAt,
    note: record.note,
    highlights: portableHighlights(record.highlights),
    contentMarkdown: record.contentMarkdown,
    source: record.source,
  }));
  return out.result();
}

const statuses: readonly string[] = ["stashed", "flagged", "archived"] satisfies PortableStatus[];

/** The status when it is one Trove knows; otherwise none (the items service's default). */
export function portableStatus(value: unknown): PortableStatus | undefined {
  return typeof value === "string" && statuses.includes(value) ? (value as PortableStatus) : undefined;
}

/** PortableHighlight[] as Trove writes it; collect.ts checks each field. */
export function portableHighlights(value: unknown): HighlightDraft[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((h) => ({
    text: h.text,
    note: h.note,
    prefix: h.prefix,
    suffix: h.suffix,
    startOffset: h.startOffset,
    endOffset: h.endOffset,
    createdAt: h.createdAt,
  }));
}
