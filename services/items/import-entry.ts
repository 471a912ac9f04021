// One import entry made safe to save: the URL normalised as a save's, every string cleaned (NUL removed, lone
// surrogates replaced: PostgreSQL refuses both) and cut to the public API's limits, times clamped to now. The bus
// carries plain JSON from a parser of an uploaded file, so nothing in it is trusted.
import type { PortableStatus } from "@trove/contracts";
import { toAppError } from "@trove/errors";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";

/** The public API's limits (updateItem, createHighlight, ingest), applied to imports. */
export const importLimits = {
  url: 8_192,
  title: 1_000,
  tag: 100,
  tags: 100,
  collection: 200,
  collections: 100,
  notes: 100_000,
  highlightText: 20_000,
  highlightNote: 20_000,
  anchor: 2_000,
  highlights: 1_000,
  source: 200,
  /** Characters of carried content kept for extraction (the fetch cap); extraction caps the Markdown further. */
  content: 5 * 1024 * 1024,
};

const int4Max = 2 ** 31 - 1;
const statuses: readonly PortableStatus[] = ["stashed", "flagged", "archived"];

export interface CleanHighlight {
  text: string;
  note: string;
  prefix?: string;
  suffix?: string;
  startOffset?: number;
  endOffset?: number;
  createdAt?: number;
}

export interface CleanEntry {
  url: string;
  hash: string;
  hostname: string;
  /** Absent when the entry has none (the extracted title, else the host, is used). */
  title?: string;
  createdAt?: number;
  status: PortableStatus;
  processedAt: number | null;
  note: string;
  tags: string[];
  collections: string[];
  highlights: CleanHighlight[];
  source: string | null;
  content?: { markdown?: string; html?: string };
}

/** Cuts to `max` UTF-16 units without splitting a surrogate pair. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

/** A storable string, or undefined when `v` is none. */
export function storable(v: unknown, max: number): string | undefined {
  if (typeof v !== "string") return undefined;
  return cut(v.replaceAll("\u0000", "").toWellFormed(), max);
}

/** Unix seconds in (0, now]; a later time is now; anything else undefined. */
function seconds(v: unknown, now: number): number | undefined {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return undefined;
  return Math.min(Math.floor(v), now);
}

const offset = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= int4Max ? v : undefined);

/** Distinct trimmed non-empty names, each cut to `max`, at most `count` of them. */
function names(v: unknown, max: number, count: number): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const raw of v) {
    const name = storable(raw, max)?.trim();
    if (name && !out.includes(name)) out.push(name);
    if (out.length === count) break;
  }
  return out;
}

function highlights(v: unknown, now: number): CleanHighlight[] {
  if (!Array.isArray(v)) return [];
  const out: CleanHighlight[] = [];
  for (const raw of v.slice(0, importLimits.highlights)) {
    if (raw === null || typeof raw !== "object") continue;
    const h = raw as Record<string, unknown>;
    const text = storable(h.text, importLimits.highlightText);
    if (!text?.trim()) continue;
    let start = offset(h.startOffset);
    let end = offset(h.endOffset);
    // Offsets count only as a pair in order; otherwise the text is located in the content.
    if (start === undefined || end === undefined || end < start) start = end = undefined;
    out.push({
      text,
      note: storable(h.note, importLimits.highlightNote) ?? "",
      prefix: storable(h.prefix, importLimits.anchor),
      suffix: storable(h.suffix, importLimits.anchor),
      startOffset: start,
      endOffset: end,
      createdAt: seconds(h.createdAt, now),
    });
  }
  return out;
}

/** The entry ready to save, or why it cannot be (a missing or unsavable URL). */
export function cleanEntry(raw: unknown, now: number): CleanEntry | { failed: string } {
  if (raw === null || typeof raw !== "object") return { failed: "not an entry" };
  const e = raw as Record<string, unknown>;
  if (typeof e.url !== "string" || e.url.trim() === "") return { failed: "no url" };
  if (e.url.length > importLimits.url) return { failed: `url is longer than ${importLimits.url} characters` };
  let url: URL;
  try {
    url = parseSaveUrl(storable(e.url, importLimits.url)!);
  } catch (err) {
    return { failed: toAppError(err).message };
  }
  const normalized = normalizeUrl(url);
  const markdown = storable(e.contentMarkdown, importLimits.content);
  const html = storable(e.contentHtml, importLimits.content);
  return {
    url: normalized,
    hash: urlHash(normalized),
    hostname: url.hostname,
    title: storable(e.title, importLimits.title)?.trim() || undefined,
    createdAt: seconds(e.createdAt, now),
    status: statuses.includes(e.status as PortableStatus) ? (e.status as PortableStatus) : "stashed",
    processedAt: seconds(e.processedAt, now) ?? null,
    note: storable(e.note, importLimits.notes) ?? "",
    tags: names(e.tags, importLimits.tag, importLimits.tags),
    collections: names(e.collections, importLimits.collection, importLimits.collections),
    highlights: highlights(e.highlights, now),
    source: storable(e.source, importLimits.source)?.trim() || null,
    content: markdown?.trim() ? { markdown } : html?.trim() ? { html } : undefined,
  };
}
