// Reading ZIP exports without trusting them. fflate's streaming Unzip reads the local file headers in order, so
// an archive cut short (no central directory) still yields every entry before the cut. Sizes the archive declares
// are never trusted: the inflated bytes are counted as they come, and the archive is fed in small slices so one
// step can inflate at most a few MiB (DEFLATE expands ~1000:1) before the count is checked. An entry that grows
// past the per-entry limit is given up alone (its bytes dropped, its inflating stopped); the archive as a whole
// is refused only past the total limit, which counts every byte inflated, kept or not.
import { UnzipInflate, Unzip, type AsyncFlateStreamHandler, type UnzipFile } from "fflate";
import { ImportFileError } from "./errors.ts";
import type { ImportLimits } from "./limits.ts";

export interface ZipEntry {
  name: string;
  /** 0-based position among the archive's entries. */
  index: number;
  data: Uint8Array;
}

export interface ZipRead {
  /** The wanted entries read whole, in archive order. */
  entries: ZipEntry[];
  /** Wanted entries that could not be read (too large, damaged, unsupported compression, cut off). */
  failed: { name: string; index: number; reason: string; tooLarge?: true }[];
  /** Set when the archive does not end as a ZIP does (cut short) or is damaged past some point. */
  truncated?: string;
}

const sliceBytes = 16 * 1024;

export function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

interface OpenEntry {
  name: string;
  index: number;
  chunks: Uint8Array[];
  size: number;
  done: boolean;
  error?: string;
  tooLarge?: true;
}

/**
 * Reads the entries `wanted` accepts (by name), skipping the others' data uninflated. A wanted entry inflating
 * past `maxZipEntryBytes` is failed alone (`tooLarge`). Throws `zip_bomb` when the archive holds more than
 * `maxZipEntries` entries or the wanted ones inflate past `maxZipBytes` together, and `corrupt_file` when it is
 * not a ZIP archive. `stopAfter`: stop once that many wanted entries were read.
 */
export function readZip(
  bytes: Uint8Array,
  limits: ImportLimits,
  wanted: (name: string) => boolean,
  stopAfter = Number.POSITIVE_INFINITY,
): ZipRead {
  if (!isZip(bytes)) throw new ImportFileError("corrupt_file", "not a ZIP archive");
  const entries: ZipEntry[] = [];
  const failed: ZipRead["failed"] = [];
  const open: OpenEntry[] = [];
  let seen = 0;
  let done = 0;
  let total = 0;
  let bomb: ImportFileError | undefined;
  // The entry whose decoder fflate makes next (file.start() makes it at once).
  let starting: OpenEntry | undefined;

  /** DEFLATE that stops inflating once its entry is given up: fflate's own inflater cannot be stopped. */
  class EntryInflate {
    static readonly compression = 8;
    ondata: AsyncFlateStreamHandler = () => {};
    private readonly entry = starting;
    private readonly inflate = new UnzipInflate();
    constructor() {
      this.inflate.ondata = (err, data, final) => this.ondata(err, data, final);
    }
    push(chunk: Uint8Array, final: boolean): void {
      if (this.entry?.error === undefined) this.inflate.push(chunk, final);
    }
  }

  const unzip = new Unzip((file: UnzipFile) => {
    const index = seen++;
    if (seen > limits.maxZipEntries) {
      bomb ??= new ImportFileError("zip_bomb", `the archive holds more than ${limits.maxZipEntries} entries`);
      return;
    }
    if (file.name.endsWith("/") || !wanted(file.name)) return;
    if (file.compression !== 0 && file.compression !== 8) {
      failed.push({ name: file.name, index, reason: `unsupported ZIP compression method ${file.compression}` });
      return;
    }
    const entry: OpenEntry = { name: file.name, index, chunks: [], size: 0, done: false };
    open.push(entry);
    file.ondata = (err, chunk, final) => {
      // Throwing here would be caught inside fflate's inflater; the reading loop below throws instead.
      if (bomb || entry.done) return;
      if (err) {
        entry.error ??= `damaged entry (${err.message})`;
        return;
      }
      // Every byte inflated counts, kept or not (a given-up entry inflates to the end of the slice at hand).
      total += chunk.length;
      if (total > limits.maxZipBytes) {
        bomb = new ImportFileError("zip_bomb", `the archive expands past ${limits.maxZipBytes} bytes`);
        return;
      }
      if (entry.error !== undefined) return;
      entry.size += chunk.length;
      if (entry.size > limits.maxZipEntryBytes) {
        entry.error = `expands past ${limits.maxZipEntryBytes} bytes: not read (a ZIP bomb?)`;
        entry.tooLarge = true;
        entry.chunks = [];
        return;
      }
      entry.chunks.push(chunk);
      if (final) {
        entry.done = true;
        done++;
      }
    };
    starting = entry;
    file.start();
    starting = undefined;
  });
  unzip.register(EntryInflate);

  let damaged: string | undefined;
  try {
    for (let at = 0; at < bytes.length; at += sliceBytes) {
      const end = Math.min(at + sliceBytes, bytes.length);
      unzip.push(bytes.subarray(at, end), end === bytes.length);
      if (bomb) throw bomb;
      if (done >= stopAfter) break;
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    damaged = `the archive is damaged or cut short (${(err as Error).message})`;
  }

  for (const entry of open) {
    if (entry.done) entries.push({ name: entry.name, index: entry.index, data: concat(entry.chunks, entry.size) });
    else if (entry.error !== undefined) failed.push({ name: entry.name, index: entry.index, reason: entry.error, ...(entry.tooLarge ? { tooLarge: true as const } : {}) });
    else if (stopAfter === Number.POSITIVE_INFINITY) failed.push({ name: entry.name, index: entry.index, reason: "cut off: the archive ends inside it" });
  }
  if (seen === 0) throw new ImportFileError("corrupt_file", "no readable entry in the ZIP archive");
  const truncated = damaged ?? (stopAfter === Number.POSITIVE_INFINITY && !hasEndRecord(bytes) ? "the archive's end (central directory) is missing: cut short?" : undefined);
  return truncated === undefined ? { entries, failed } : { entries, failed, truncated };
}

/** Whether the end-of-central-directory record is where a complete archive has it: in its last 64 KiB + 22 bytes. */
function hasEndRecord(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes[i] === 0x50 && bytes[i + 1] === 0x4b && bytes[i + 2] === 0x05 && bytes[i + 3] === 0x06) return true;
  }
  return false;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The last path segment of an entry name. */
export function baseName(name: string): string {
  return segments(name).at(-1) ?? "";
}

/** The segment before the last ("content" for "export/content/a.html"), "" at the top. */
export function parentName(name: string): string {
  return segments(name).at(-2) ?? "";
}

// Archives made on Windows may separate folders with backslashes.
function segments(name: string): string[] {
  return name.split(/[/\\]/);
}
