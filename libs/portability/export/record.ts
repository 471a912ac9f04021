// A record as exports write it: the contract's fields only, in the contract's order, the note and the content
// only when the export includes them (a record from the items service might carry more).
import type { ExportRecord, PortableHighlight } from "@trove/contracts";
import type { ExportWriterOptions } from "./writer.ts";

export const portableHighlight = (h: PortableHighlight): PortableHighlight => ({
  text: h.text,
  note: h.note,
  ...(h.prefix !== undefined ? { prefix: h.prefix } : {}),
  ...(h.suffix !== undefined ? { suffix: h.suffix } : {}),
  startOffset: h.startOffset,
  endOffset: h.endOffset,
  ...(h.createdAt !== undefined ? { createdAt: h.createdAt } : {}),
});

export const portableRecord = (r: ExportRecord, opts: Pick<ExportWriterOptions, "includeContent" | "includeNotes">): ExportRecord => ({
  id: r.id,
  url: r.url,
  title: r.title,
  status: r.status,
  tags: r.tags,
  collections: r.collections,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  processedAt: r.processedAt,
  contentExtractedAt: r.contentExtractedAt,
  source: r.source,
  ...(opts.includeNotes && r.note !== undefined ? { note: r.note } : {}),
  highlights: r.highlights.map(portableHighlight),
  ...(opts.includeContent && r.contentMarkdown !== undefined ? { contentMarkdown: r.contentMarkdown } : {}),
});

/** ISO 8601 in UTC, milliseconds included (as the notes export writes times). */
export const isoTime = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();
