// Data portability: what export and import jobs carry between the exports service and the items service over the
// bus. Exports page through the caller's items as ExportRecords; imports hand over ImportEntries, parsed from the
// uploaded file, for the items service to save like any other save (dedupe, quota, events).

/** A highlight as exports write it and imports read it. */
export interface PortableHighlight {
  text: string;
  note: string;
  prefix?: string;
  suffix?: string;
  /** UTF-16 offsets into the item's Markdown; null when unknown. */
  startOffset: number | null;
  endOffset: number | null;
  /** Unix seconds; absent when the file does not say. */
  createdAt?: number;
}

export type PortableStatus = "stashed" | "flagged" | "archived";

/** One item as an export carries it (also the record of Trove's own JSON export). */
export interface ExportRecord {
  id: string;
  url: string;
  title: string;
  status: PortableStatus;
  /** Tag names (display names), in the item's order. */
  tags: string[];
  /** Collection names. */
  collections: string[];
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
  processedAt: number | null;
  /** When the content was extracted (Unix seconds), null when never. */
  contentExtractedAt: number | null;
  source: string | null;
  /** The user's personal item note; absent when the export omits notes. */
  note?: string;
  highlights: PortableHighlight[];
  /** The extracted Markdown; absent unless the export includes content (or the item has none). */
  contentMarkdown?: string;
}

/** One entry of an import file, as a parser reads it. Only `url` is required. */
export interface ImportEntry {
  url: string;
  title?: string;
  /** The original saved time (Unix seconds): becomes the item's `createdAt`. */
  createdAt?: number;
  /** Tag names. */
  tags?: string[];
  /** Collection names (bookmark folders, Pocket/Instapaper folders). */
  collections?: string[];
  status?: PortableStatus;
  /** Read/processed time (Unix seconds) when the service recorded one. */
  processedAt?: number;
  /** The user's note on the item. */
  note?: string;
  highlights?: PortableHighlight[];
  /** Content the file carries, Markdown (preferred) or HTML; neither: the page is fetched in the background. */
  contentMarkdown?: string;
  contentHtml?: string;
  /** Where the entry came from, recorded as the item's `source` (e.g. `import:pocket`). */
  source?: string;
}

/** An entry the parser could not read: its position in the file and why. */
export interface ImportParseError {
  /** 0-based position among the file's entries (or rows/lines), for the summary. */
  index: number;
  reason: string;
  /** What identifies it to the user (a URL, a title, a line number), when known. */
  hint?: string;
  /** The entry was still read, with this part missing (its highlights, its page): not an entry lost. */
  partial?: true;
}

export interface ImportParseResult {
  entries: ImportEntry[];
  errors: ImportParseError[];
  /** Set when the file ended early (truncated, corrupt past some point): what was readable is in `entries`. */
  truncated?: string;
}

export const importFormats = [
  "netscape_html",
  "pocket_csv",
  "omnivore_zip",
  "instapaper_csv",
  "readwise_csv",
  "wallabag_json",
  "karakeep_json",
  "trove_json",
  "trove_markdown_zip",
] as const;
export type ImportFormat = (typeof importFormats)[number];

/** Items saves a batch of import entries as the caller (headers carry it); one result per entry, in order. */
export const importEntriesSubject = "items.internal.importEntries";

export interface ImportEntriesRequest {
  entries: ImportEntry[];
}

export type ImportOutcome =
  /** A new item. `needsFetch`: it has no content yet; the import fetches it in the background. */
  | { outcome: "created"; id: string; needsFetch: boolean }
  /** The URL was already saved: tags, collections and highlights the entry adds are merged, nothing is replaced. */
  | { outcome: "present"; id: string }
  /** The plan's limit is reached: this entry and every later one of the batch are not saved. */
  | { outcome: "quota" }
  | { outcome: "failed"; reason: string };

export interface ImportEntriesReply {
  results: ImportOutcome[];
}

/** Items fetches and extracts one item's page now (SSRF-guarded), keeping the item whatever happens. */
export const captureItemSubject = "items.internal.captureItem";

export interface CaptureItemRequest {
  itemId: string;
}

export interface CaptureItemReply {
  /** `stored`: content saved; `failed`: the fetch or extraction failed (reason); `gone`: the item was deleted. */
  outcome: "stored" | "failed" | "gone";
  reason?: string;
}

/** Items answers one page of the caller's items for an export (scope applied), in id order after `after`. */
export const exportPageSubject = "items.internal.exportPage";

export interface ExportPageRequest {
  /** Tag names or slugs: items carrying every one of them. */
  tags?: string[];
  /** A collection id, name or slug. */
  collection?: string;
  /** Statuses to include; absent: every status, archived included. */
  status?: PortableStatus[];
  includeContent: boolean;
  includeNotes: boolean;
  /** The last id of the previous page; absent for the first. */
  after?: string;
  /** Records at most; a page also stops once its content passes a byte budget (at least one record). */
  limit: number;
}

export interface ExportPageReply {
  records: ExportRecord[];
  /** The id to pass as `after` for the next page; null when this was the last. */
  next: string | null;
}
