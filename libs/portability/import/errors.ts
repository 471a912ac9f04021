// A whole-file failure: the import job fails with this reason. One unreadable row or entry is never this: it goes
// into the result's `errors` and the rest of the file is still read.
import { cleanText } from "./text.ts";

export type ImportFileErrorCode =
  /** A ZIP archive that inflates past the limits, or holds too many entries. */
  | "zip_bomb"
  /** Not readable as the format at all (not a ZIP, not JSON, nothing recoverable). */
  | "corrupt_file"
  /** Readable, but not the format asked for (e.g. a CSV without a URL column), or an unknown format. */
  | "unsupported_format";

export class ImportFileError extends Error {
  override readonly name = "ImportFileError";
  /** Stable; worker-pool errors carry it as `data.code`. */
  readonly code: ImportFileErrorCode;

  constructor(code: ImportFileErrorCode, message: string) {
    // Messages may quote the file (entry names): the job stores them as its failure reason.
    super(cleanText(message));
    this.code = code;
  }
}
