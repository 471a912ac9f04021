// GET /api/notes/export: every note of the account, current and archived, as one Markdown file with YAML
// frontmatter each, in a ZIP. The ZIP is written into the blob store as archiver produces it, a bounded batch of
// notes at a time, and the reply names the blob: the gateway streams it to the client and removes it once sent.
// Memory stays bounded by one batch of bodies (plus archiver's small buffers), whatever the number of notes.
import type { BlobStore } from "@trove/blobs";
import type { BlobReply, Caller } from "@trove/contracts";
import { newId } from "@trove/db";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
// The file-name helper alone: the ZIP writer and archiver load on the first export (loadZip).
import { slugFileName } from "@trove/portability/export/file-name.ts";
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
    const { ZipArchive, ZipWriter } = await loadZip();
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
          for (const note of await this.repo.withBodies(caller.accountId, ids)) zip.add(fileName(note), await document(note), new Date(note.updated_at * 1000));
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

/** `<slug of the title>-<id>.md`, archived notes under `archived/` (see `slugFileName`). */
export const fileName = (n: Pick<NoteRow, "id" | "title" | "archived_at">): string =>
  slugFileName(n.title, n.id, { folder: n.archived_at !== null ? "archived" : undefined, fallback: "note", ext: "md" });

/** archiver and the ZIP writer, imported on the first export: a process that never exports never holds them. */
const loadZip = async () => {
  const [{ ZipArchive }, { ZipWriter }] = await Promise.all([import("archiver"), import("@trove/portability/export/zip-writer.ts")]);
  return { ZipArchive, ZipWriter };
};
