// Import jobs: taking the uploaded file (kept in the blob store until the job is done, so a restart can resume it),
// naming its format, listing and reading jobs with the reasons of failed entries.
import { importFormats, isScoped, type Caller, type ImportFormat } from "@trove/contracts";
import type { BlobStore } from "@trove/blobs";
import type { Kysely } from "kysely";
import { newId, nowSeconds } from "@trove/db";
import { AppError, notFound } from "@trove/errors";
import type { QueueSet } from "@trove/jobs";
import type { FetchesRepository } from "./fetches.repository.ts";
import { importView } from "./job-view.ts";
import type { JobsRepository } from "./jobs.repository.ts";
import { createJob, ownKey, tooManyJobs } from "./exports.service.ts";

export interface ImportRequest {
  file: string;
  format?: ImportFormat;
  fileName?: string;
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class ImportsService {
  constructor(
    private readonly db: Kysely<any>,
    private readonly jobs: JobsRepository,
    private readonly fetches: FetchesRepository,
    private readonly queue: QueueSet,
    private readonly blobs: BlobStore,
    private readonly maxOpenJobs: number,
  ) {}

  async create(caller: Caller, query: { format?: ImportFormat; fileName?: string }, body: ImportRequest) {
    // An import writes tags and collections across the library: a key confined to part of it may not.
    if (isScoped(caller)) throw new AppError("forbidden", "a key scoped to a tag or collection cannot import");
    const text = body.file.replace(/\s+/g, "");
    if (text.length % 4 === 1 || !base64.test(text)) throw new AppError("validation_failed", "file is not base64", { fields: { file: "expected base64" } });
    const bytes = new Uint8Array(Buffer.from(text, "base64"));
    if (bytes.byteLength === 0) throw new AppError("validation_failed", "the file is empty", { fields: { file: "empty" } });
    const fileName = clean(body.fileName ?? query.fileName);
    const format = body.format ?? query.format ?? (await detect())(bytes, fileName ?? undefined);
    if (!format) {
      throw new AppError("validation_failed", "the file's format could not be recognised; name it in `format`", {
        fields: { format: `one of ${importFormats.join(", ")}` },
      });
    }
    const id = newId();
    const blob = `import-${id}`;
    await this.blobs.put(blob, bytes);
    let made = false;
    try {
      made = await createJob(
        this.db,
        this.jobs,
        this.queue,
        { id, accountId: caller.accountId, kind: "import", format, params: {}, caller, blob, fileName, sizeBytes: bytes.byteLength, now: nowSeconds() },
        this.maxOpenJobs,
      );
    } finally {
      if (!made) await this.blobs.delete(blob).catch(() => {});
    }
    if (!made) throw tooManyJobs("import", this.maxOpenJobs);
    return { import: importView((await this.jobs.get(caller.accountId, "import", id, ownKey(caller)))!) };
  }

  async list(caller: Caller, limit: number, offset: number) {
    const { rows, count } = await this.jobs.list(caller.accountId, "import", limit, offset, ownKey(caller));
    const fetches = await this.fetches.counts(rows.map((r) => r.id));
    return { imports: rows.map((r) => importView(r, fetches.get(r.id))), limit, offset, count };
  }

  async get(caller: Caller, id: string, limit: number, offset: number) {
    const row = await this.jobs.get(caller.accountId, "import", id, ownKey(caller));
    if (!row) throw notFound("import");
    const fetches = await this.fetches.counts([id]);
    const failures = await this.jobs.failures(id, limit, offset);
    return {
      import: importView(row, fetches.get(id)),
      failures: failures.map((f) => ({ index: Number(f.idx), url: f.url, reason: f.reason })),
      // Also the entries read with a part missing, which `failed` does not count.
      failuresCount: await this.jobs.failureCount(id),
    };
  }
}

/** A file name as shown back: no NUL or lone surrogates, no path. */
function clean(name: string | undefined): string | null {
  if (name === undefined) return null;
  const base = name.toWellFormed().replace(/\0/g, "").split(/[\\/]/).at(-1)!.trim();
  return base === "" ? null : base.slice(0, 255);
}

/** The format sniffer, imported on the first import that needs it (it reads ZIPs and YAML). */
const detect = async () => (await import("@trove/portability/import/detect.ts")).detectFormat;
