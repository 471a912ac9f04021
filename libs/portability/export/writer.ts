// What every export writer offers the exports service: records go in page by page, bytes come out as a stream
// that the blob store reads (`BlobStore.putStream`).
import type { ExportRecord } from "@trove/contracts";

export const exportFormats = ["markdown_zip", "json", "csv"] as const;
export type ExportFormat = (typeof exportFormats)[number];

export interface ExportWriterOptions {
  /** Write each record's `contentMarkdown` (when it has one); otherwise it is left out even if present. */
  includeContent: boolean;
  /** Write each record's personal `note` (when it has one); otherwise it is left out even if present. */
  includeNotes: boolean;
  /** When the export was made, Unix seconds (in the JSON header and the ZIP comment). */
  exportedAt: number;
}

/**
 * One export file being written. Use: hand `output` to `putStream`, then `await write(page)` for each page (it
 * resolves once the reader has taken that page's bytes, so at most about one page is held whatever the total),
 * then `await finish()` with the store's promise. When the store fails, or anything else does, call `abort(err)`:
 * a pending `write`/`finish` rejects and the output ends with `err` (the store drops what it wrote).
 */
export interface ExportWriter {
  readonly format: ExportFormat;
  readonly contentType: string;
  /** The file's extension, without the dot. */
  readonly extension: string;
  /** The file's bytes, read once, by one reader. */
  readonly output: AsyncIterable<Uint8Array>;
  /** Records written so far (taken by the reader). */
  readonly itemCount: number;
  write(records: readonly ExportRecord[]): Promise<void>;
  /** Writes what closes the file and ends the output; resolves once the reader has taken the last bytes. */
  finish(): Promise<void>;
  abort(err: unknown): void;
}
