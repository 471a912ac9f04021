// How much of an import file a parser reads and keeps. The defaults bound a worker's memory and the size of one
// import job; tests pass smaller limits to exercise the edges without building huge files.

export interface ImportLimits {
  /** Entries read at most; the rest of the file is reported as not read (`truncated`). */
  maxEntries: number;
  /** Row or entry errors listed at most; further ones are counted in one closing error. */
  maxErrors: number;
  /** Bytes all ZIP entries the parser reads may inflate to, together (past it: `zip_bomb`, the whole file). */
  maxZipBytes: number;
  /** Bytes one ZIP entry may inflate to; a larger one is not read (that entry fails, the others are read). */
  maxZipEntryBytes: number;
  /** Entries a ZIP archive may hold (read or not). */
  maxZipEntries: number;
  maxUrlLength: number;
  maxTitleLength: number;
  maxTagLength: number;
  maxTags: number;
  maxCollectionLength: number;
  maxCollections: number;
  /** Folders nested in a bookmark file at most; a deeper one ends the reading (`truncated`). */
  maxFolderDepth: number;
  maxNoteLength: number;
  maxHighlightLength: number;
  maxHighlights: number;
  /** Characters of carried content (Markdown or HTML) kept per entry; the items service caps it further. */
  maxContentLength: number;
}

const MiB = 1024 * 1024;

export const defaultImportLimits: Readonly<ImportLimits> = Object.freeze({
  maxEntries: 100_000,
  maxErrors: 10_000,
  maxZipBytes: 256 * MiB,
  // Room for the largest content kept (maxContentLength characters, at most 3 bytes each in UTF-8) and its markup.
  maxZipEntryBytes: 16 * MiB,
  maxZipEntries: 200_000,
  // The save API's own bound on a URL.
  maxUrlLength: 8_192,
  maxTitleLength: 1_000,
  maxTagLength: 100,
  maxTags: 100,
  maxCollectionLength: 200,
  maxCollections: 100,
  // Far deeper than any browser's folders; it also bounds the HTML parser's stack of open elements, which every
  // unmatched end tag searches.
  maxFolderDepth: 100,
  maxNoteLength: 100_000,
  maxHighlightLength: 20_000,
  maxHighlights: 5_000,
  maxContentLength: 4_000_000,
});

/** The defaults with the given overrides. */
export function resolveLimits(overrides?: Partial<ImportLimits>): ImportLimits {
  return { ...defaultImportLimits, ...overrides };
}
