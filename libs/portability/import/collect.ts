// What every parser shares: a row or entry read as loosely typed fields (a draft) becomes a clean ImportEntry, or
// an error naming its position; the entry and error limits are applied here, once.
import type { ImportEntry, ImportParseError, ImportParseResult, PortableHighlight, PortableStatus } from "@trove/contracts";
import type { ImportLimits } from "./limits.ts";
import { clampText, cleanText, optionalText } from "./text.ts";
import { unixSeconds } from "./time.ts";
import { checkWebUrl } from "./url.ts";

export interface HighlightDraft {
  text: unknown;
  note?: unknown;
  prefix?: unknown;
  suffix?: unknown;
  startOffset?: unknown;
  endOffset?: unknown;
  createdAt?: unknown;
}

/** One entry as a parser read it; collect.ts checks, cleans and clamps every field. */
export interface EntryDraft {
  url: unknown;
  title?: unknown;
  createdAt?: unknown;
  processedAt?: unknown;
  tags?: readonly unknown[];
  collections?: readonly unknown[];
  status?: PortableStatus;
  note?: unknown;
  highlights?: readonly HighlightDraft[];
  contentMarkdown?: unknown;
  contentHtml?: unknown;
  /** Overrides the collector's source; null or absent: the collector's (trove formats keep the record's own). */
  source?: unknown;
}

/** Added to an entry both archived and favourited: Trove's status holds one of the two, the tag keeps the other. */
export const favouriteTag = "favorite";

/** The mapping every format applies: archived wins the status; a favourite is `flagged`, or tagged when archived. */
export function statusFor(archived: boolean, favourite: boolean): { status: PortableStatus; tags: string[] } {
  if (archived) return { status: "archived", tags: favourite ? [favouriteTag] : [] };
  return { status: favourite ? "flagged" : "stashed", tags: [] };
}

/** true, 1, "1", "true", "yes" (any case). */
export function isTrue(value: unknown): boolean {
  if (value === true || value === 1) return true;
  return typeof value === "string" && ["1", "true", "yes"].includes(value.trim().toLowerCase());
}

const maxHintLength = 300;
const maxReasonLength = 1_000;

export class EntryCollector {
  private readonly entries: ImportEntry[] = [];
  private readonly errors: ImportParseError[] = [];
  private unlistedErrors = 0;
  private firstUnlisted = 0;
  private truncated: string | undefined;

  constructor(
    private readonly limits: ImportLimits,
    /** The `source` of every entry (e.g. `import:pocket`), unless a draft carries its own. */
    private readonly source?: string,
  ) {}

  /** Whether another entry may be read; false (and the result marked truncated) once the entry limit is reached. */
  more(): boolean {
    if (this.entries.length < this.limits.maxEntries) return true;
    this.truncate(`the file holds more than ${this.limits.maxEntries} entries; only the first ${this.limits.maxEntries} were read`);
    return false;
  }

  /** Adds the entry, or an error when it has no usable URL (hint: its URL, else its title, else `fallbackHint`). */
  add(index: number, draft: EntryDraft, fallbackHint?: string): void {
    const built = this.build(draft);
    if (typeof built === "string") this.fail(index, built, hintOf(draft) ?? fallbackHint);
    else this.entries.push(built);
  }

  /** `partial`: the entry itself was read; only a part of it is missing. */
  fail(index: number, reason: string, hint?: string, partial?: true): void {
    if (this.errors.length >= this.limits.maxErrors) {
      if (this.unlistedErrors === 0) this.firstUnlisted = index;
      this.unlistedErrors++;
      return;
    }
    // Reasons may quote the file (ZIP entry names, parser messages): they are stored like any other text.
    const cleanReason = clampText(cleanText(reason), maxReasonLength);
    const cleanHint = hint === undefined ? undefined : optionalText(hint, maxHintLength);
    this.errors.push({ index, reason: cleanReason, ...(cleanHint === undefined ? {} : { hint: cleanHint }), ...(partial ? { partial } : {}) });
  }

  /** Marks the result truncated; the first reason is kept. */
  truncate(reason: string): void {
    this.truncated ??= reason;
  }

  result(): ImportParseResult {
    const errors = [...this.errors];
    if (this.unlistedErrors > 0) {
      errors.push({ index: this.firstUnlisted, reason: `${this.unlistedErrors} more entries could not be read (not listed)` });
    }
    return this.truncated === undefined
      ? { entries: this.entries, errors }
      : { entries: this.entries, errors, truncated: this.truncated };
  }

  private build(draft: EntryDraft): ImportEntry | string {
    const l = this.limits;
    const url = checkWebUrl(draft.url, l.maxUrlLength);
    if (!url.ok) return url.reason;
    const entry: ImportEntry = { url: url.url };
    const title = optionalText(oneLine(draft.title), l.maxTitleLength);
    if (title !== undefined) entry.title = title;
    const createdAt = unixSeconds(draft.createdAt);
    if (createdAt !== undefined) entry.createdAt = createdAt;
    const tags = cleanNames(draft.tags, l.maxTagLength, l.maxTags);
    if (tags.length > 0) entry.tags = tags;
    const collections = cleanNames(draft.collections, l.maxCollectionLength, l.maxCollections);
    if (collections.length > 0) entry.collections = collections;
    if (draft.status !== undefined) entry.status = draft.status;
    const processedAt = unixSeconds(draft.processedAt);
    if (processedAt !== undefined) entry.processedAt = processedAt;
    const note = optionalText(draft.note, l.maxNoteLength);
    if (note !== undefined) entry.note = note;
    const highlights = cleanHighlights(draft.highlights ?? [], l);
    if (highlights.length > 0) entry.highlights = highlights;
    const markdown = content(draft.contentMarkdown, l.maxContentLength);
    if (markdown !== undefined) entry.contentMarkdown = markdown;
    const html = content(draft.contentHtml, l.maxContentLength);
    if (html !== undefined) entry.contentHtml = html;
    const source = draft.source === undefined || draft.source === null ? this.source : optionalText(draft.source, 200);
    if (source !== undefined) entry.source = source;
    return entry;
  }
}

/** Whitespace runs (newlines from HTML or CSV cells included) as single spaces: a title or tag is one line. */
function oneLine(value: unknown): unknown {
  return typeof value === "string" ? value.replace(/\s+/g, " ") : value;
}

/** Trimmed, non-empty, clamped, deduplicated case-insensitively (first spelling kept), at most `maxCount`. */
export function cleanNames(values: readonly unknown[] | undefined, maxLength: number, maxCount: number): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const value of values ?? []) {
    if (names.length >= maxCount) break;
    const name = optionalText(oneLine(value), maxLength);
    if (name === undefined) continue;
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    names.push(name);
  }
  return names;
}

function cleanHighlights(drafts: readonly HighlightDraft[], l: ImportLimits): PortableHighlight[] {
  const highlights: PortableHighlight[] = [];
  for (const draft of drafts) {
    if (highlights.length >= l.maxHighlights) break;
    // Not trimmed: Trove's own highlights carry offsets into the Markdown that the text must keep matching.
    if (typeof draft.text !== "string") continue;
    const text = clampText(cleanText(draft.text), l.maxHighlightLength);
    if (text.trim() === "") continue;
    const note = typeof draft.note === "string" ? clampText(cleanText(draft.note).trim(), l.maxNoteLength) : "";
    let startOffset = offset(draft.startOffset);
    let endOffset = offset(draft.endOffset);
    if (startOffset === null || endOffset === null || endOffset < startOffset) startOffset = endOffset = null;
    const highlight: PortableHighlight = { text, note, startOffset, endOffset };
    const prefix = typeof draft.prefix === "string" ? clampText(cleanText(draft.prefix), l.maxHighlightLength) : "";
    if (prefix !== "") highlight.prefix = prefix;
    const suffix = typeof draft.suffix === "string" ? clampText(cleanText(draft.suffix), l.maxHighlightLength) : "";
    if (suffix !== "") highlight.suffix = suffix;
    const createdAt = unixSeconds(draft.createdAt);
    if (createdAt !== undefined) highlight.createdAt = createdAt;
    highlights.push(highlight);
  }
  return highlights;
}

/** Content as written (not trimmed: highlight offsets point into it); undefined when blank. */
function content(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = clampText(cleanText(value), max);
  return text.trim() === "" ? undefined : text;
}

function offset(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function hintOf(draft: EntryDraft): string | undefined {
  if (typeof draft.url === "string" && draft.url.trim() !== "") return draft.url;
  return typeof draft.title === "string" && draft.title.trim() !== "" ? draft.title : undefined;
}
