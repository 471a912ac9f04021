// GET /api/notes/export: every note of the account, current and archived, as one Markdown file with YAML
// frontmatter each, in a ZIP. The ZIP is written into the blob store as archiver produces it, a bounded batch of
// notes at a time, and the reply names the blob: the gateway streams it to the client and removes it once sent.
// Memory stays bounded by one batch of bodies (plus archiver's small buffers), whatever the number of notes.
import { ZipArchive } from "archiver";
import type { BlobStore } from "@trove/blobs";
import type { BlobReply, Caller } from "@trove/contracts";
import { newId } from "@trove/db";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import type { ExportRepository } from "./export.repository.ts";
import { markdownDocument } from "./frontmatter.ts";
import type { NoteRow } from "./notes.repository.ts";
import { manifestOf } from "./note-shapes.ts";

/** Blob keys of exports: the prefix, the creation time (ms), a unique id. */
const blobPrefix = "notes-export-";
/**
 * An export blob nobody fetched within this time is removed at the next export (a gateway that gave up waiting, a
 * process that stopped between the reply and the download). Not at start-up: listing would make the object store
 * bucket in every notes process, also where nobody ever exports.
 */
export const unfetchedExportMs = 60 * 60_000;
/** Notes whose sizes are read in one query. */
const pageNotes = 200;
/** Bodies read in one query and handed to archiver before the next are read: at most this many bytes (or one note). */
const batchBytes = 4 * 1024 * 1024;
/** Bytes of a file name's title part: far below any file system's limit (255), with the id and folder added. */
const slugBytes = 80;

export class ExportService {
  constructor(
    private readonly repo: ExportRepository,
    private readonly blobs: BlobStore,
    private readonly log: Logger,
    /** The gateway stops waiting after this long; an export done later is of no use to anyone. */
    private readonly requestTimeoutMs: number,
  ) {}

  async export(caller: Caller): Promise<BlobReply> {
    const started = Date.now();
    void this.sweep();
    const key = `${blobPrefix}${started}-${newId()}`;
    const archive = new ZipArchive({ zlib: { level: 6 } });
    const zip = new ZipWriter(archive);
    const stored = this.blobs.putStream(key, archive);
    zip.failWith(stored);
    try {
      let after: string | null = null;
      for (;;) {
        const page = await this.repo.page(caller.accountId, after, pageNotes);
        if (page.length === 0) break;
        after = page.at(-1)!.id;
        for (const ids of batches(page)) {
          for (const note of await this.repo.withBodies(caller.accountId, ids)) zip.add(fileName(note), document(note), new Date(note.updated_at * 1000));
          // Nothing more is read until archiver has compressed this batch and the store has taken it.
          await zip.drained();
        }
      }
      await Promise.all([archive.finalize(), stored]);
    } catch (err) {
      // Destroyed, the archive's reader fails too: the store drops what it had written.
      archive.abort();
      archive.destroy();
      await stored.catch(() => {});
      await this.blobs.delete(key).catch(() => {});
      throw err;
    }
    if (Date.now() - started > this.requestTimeoutMs) {
      // The gateway has answered 504 already: nobody will fetch this blob.
      await this.blobs.delete(key).catch(() => {});
      throw new AppError("timeout", "the export took longer than the request timeout");
    }
    const date = new Date(started).toISOString().slice(0, 10);
    return {
      blob: key,
      contentType: "application/zip",
      headers: { "content-disposition": `attachment; filename="trove-notes-${date}.zip"`, "cache-control": "no-store" },
      deleteAfter: true,
    };
  }

  /** Removes exports older than `unfetchedExportMs` that were never downloaded (the client never came, or crashed). */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    try {
      for (const key of await this.blobs.list()) {
        if (!key.startsWith(blobPrefix)) continue;
        const made = Number(key.slice(blobPrefix.length).split("-")[0]);
        if (!Number.isFinite(made) || now - made < unfetchedExportMs) continue;
        await this.blobs.delete(key);
        removed++;
      }
    } catch (err) {
      this.log.warn({ err }, "could not sweep unfetched notes exports");
    }
    if (removed > 0) this.log.info({ removed }, "removed unfetched notes exports");
    return removed;
  }
}

/** Groups a page's ids so that each group's bodies add up to at most `batchBytes` (a larger note goes alone). */
function* batches(page: { id: string; bytes: number }[]): Generator<string[]> {
  let ids: string[] = [];
  let bytes = 0;
  for (const n of page) {
    if (ids.length > 0 && bytes + n.bytes > batchBytes) {
      yield ids;
      ids = [];
      bytes = 0;
    }
    ids.push(n.id);
    bytes += n.bytes;
  }
  if (ids.length > 0) yield ids;
}

const document = (n: NoteRow & { body: string }) => markdownDocument({ ...manifestOf(n), properties: n.properties }, n.body);

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * `<slug of the title>-<id>.md`, archived notes under `archived/`. The id makes it unique; the slug keeps letters
 * and digits of any script (NFKC, lower case; accents stay), turns every other run (slashes, dots, spaces, emoji,
 * control characters) into one dash, and is cut at whole characters to at most `slugBytes` UTF-8 bytes. So no
 * name has a path separator, a `..`, a leading dot or a reserved device name, and every name fits any file system.
 */
export function fileName(n: Pick<NoteRow, "id" | "title" | "archived_at">): string {
  const words = n.title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^[-\p{M}]+|-+$/gu, "");
  let slug = "";
  let bytes = 0;
  for (const { segment } of segmenter.segment(words)) {
    bytes += Buffer.byteLength(segment);
    if (bytes > slugBytes) break;
    slug += segment;
  }
  slug = slug.replace(/-+$/, "");
  return `${n.archived_at !== null ? "archived/" : ""}${slug ? `${slug}-` : "note-"}${n.id}.md`;
}

/**
 * Appends entries to an archiver ZIP and tells when all of them have been written out. archiver queues what is
 * appended (bodies included) until its output is read, so waiting for the queue to empty before appending more
 * is what bounds memory when the store reads slower than the database.
 */
class ZipWriter {
  private appended = 0;
  private processed = 0;
  private failure: unknown;
  private waiting: { resolve(): void; reject(err: unknown): void } | undefined;

  constructor(private readonly archive: ZipArchive) {
    archive.on("entry", () => {
      this.processed++;
      this.wake();
    });
    archive.on("error", (err) => this.fail(err));
    archive.on("warning", (err) => this.fail(err));
  }

  /** The store's write failing stops the export too (nothing reads the archive any more). */
  failWith(p: Promise<unknown>) {
    p.catch((err) => this.fail(err));
  }

  add(name: string, text: string, date: Date) {
    if (this.failure !== undefined) return;
    this.archive.append(Buffer.from(text, "utf8"), { name, date });
    this.appended++;
  }

  drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.wake();
    });
  }

  private fail(err: unknown) {
    this.failure ??= err ?? new Error("the ZIP could not be written");
    this.wake();
  }

  private wake() {
    const w = this.waiting;
    if (!w) return;
    if (this.failure !== undefined) w.reject(this.failure);
    else if (this.processed >= this.appended) w.resolve();
    else return;
    this.waiting = undefined;
  }
}
