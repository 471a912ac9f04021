// Export jobs: starting one (its filter checked now, so a bad one answers 400 at once), listing, reading, and the
// download of a completed one (streamed by the gateway from the blob store).
import { exportPageSubject, isScoped, type BlobReply, type Caller, type ExportPageRequest, type PortableStatus } from "@trove/contracts";
import type { Bus } from "@trove/bus";
import type { Kysely } from "kysely";
import { inTransaction, newId, nowSeconds } from "@trove/db";
import { AppError, notFound } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import type { QueueSet } from "@trove/jobs";
import { exportView, type ExportParams } from "./job-view.ts";
import type { JobsRepository, NewJob } from "./jobs.repository.ts";
import { queueNames, type JobPayload } from "./queue-names.ts";

export const exportFormats = {
  markdown_zip: { contentType: "application/zip", extension: "zip" },
  json: { contentType: "application/json; charset=utf-8", extension: "json" },
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv" },
} as const;
export type ExportFormat = keyof typeof exportFormats;

export interface ExportRequest {
  format: ExportFormat;
  tags?: string[];
  collection?: string;
  status?: PortableStatus[];
  includeContent?: boolean;
  includeNotes?: boolean;
}

export class ExportsService {
  constructor(
    private readonly db: Kysely<any>,
    private readonly jobs: JobsRepository,
    private readonly queue: QueueSet,
    private readonly bus: Bus,
    private readonly requestTimeoutMs: number,
    /** Open (queued or running) jobs one account may have of each kind; one more answers 429 too_many_jobs. */
    private readonly maxOpenJobs: number,
  ) {}

  async create(caller: Caller, body: ExportRequest) {
    const params: ExportParams = {
      tags: [...new Set(body.tags ?? [])],
      collection: body.collection ?? null,
      status: body.status ? [...new Set(body.status)] : null,
      includeContent: body.includeContent ?? true,
      includeNotes: body.includeNotes ?? true,
    };
    // The items service names an unknown tag or collection (400); the job would only fail later.
    await this.bus.request(exportPageSubject, { ...pageRequest(params), limit: 1, includeContent: false } satisfies ExportPageRequest, {
      timeoutMs: this.requestTimeoutMs,
      headers: callerHeaders(caller),
    });
    const id = newId();
    const made = await createJob(
      this.db,
      this.jobs,
      this.queue,
      { id, accountId: caller.accountId, kind: "export", format: body.format, params: { ...params }, caller, blob: null, fileName: null, sizeBytes: 0, now: nowSeconds() },
      this.maxOpenJobs,
    );
    if (!made) throw tooManyJobs("export", this.maxOpenJobs);
    return { export: exportView((await this.jobs.get(caller.accountId, "export", id, ownKey(caller)))!) };
  }

  async list(caller: Caller, limit: number, offset: number) {
    const { rows, count } = await this.jobs.list(caller.accountId, "export", limit, offset, ownKey(caller));
    return { exports: rows.map(exportView), limit, offset, count };
  }

  async get(caller: Caller, id: string) {
    const row = await this.jobs.get(caller.accountId, "export", id, ownKey(caller));
    if (!row) throw notFound("export");
    return { export: exportView(row) };
  }

  async download(caller: Caller, id: string): Promise<BlobReply> {
    const row = await this.jobs.get(caller.accountId, "export", id, ownKey(caller));
    if (!row) throw notFound("export");
    if (row.status !== "completed") {
      throw new AppError("export_not_ready", row.status === "failed" ? `the export failed: ${row.error}` : `the export is ${row.status}; download it once completed`, {
        status: row.status,
      });
    }
    if (row.blob === null || (row.expires_at !== null && Number(row.expires_at) <= nowSeconds())) throw new AppError("export_expired", "the export's file has expired; start a new export");
    const format = exportFormats[row.format as ExportFormat];
    const date = new Date(Number(row.created_at) * 1000).toISOString().slice(0, 10);
    return {
      blob: row.blob,
      contentType: format.contentType,
      headers: {
        "content-disposition": `attachment; filename="trove-export-${date}-${row.id.slice(-8)}.${format.extension}"`,
        "cache-control": "no-store",
      },
    };
  }
}

/** The filter part of a page request, from a job's parameters. */
export function pageRequest(p: ExportParams): Omit<ExportPageRequest, "limit"> {
  return {
    ...(p.tags.length > 0 ? { tags: p.tags } : {}),
    ...(p.collection !== null ? { collection: p.collection } : {}),
    ...(p.status !== null ? { status: p.status as PortableStatus[] } : {}),
    includeContent: p.includeContent,
    includeNotes: p.includeNotes,
  };
}

/**
 * A key scoped to a tag or collection sees only the jobs it started: an export another key made may hold the
 * whole library.
 */
export const ownKey = (caller: Caller): string | undefined => (isScoped(caller) ? caller.keyId : undefined);

/**
 * Makes the job's row and its queue job (same id) in one unit of work, unless the account has `limit` open jobs of
 * the kind; false then. A replica's worker is woken once it commits.
 */
export async function createJob(db: Kysely<any>, jobs: JobsRepository, queue: QueueSet, job: NewJob, limit: number): Promise<boolean> {
  return inTransaction(db, async (uow) => {
    if (!(await jobs.on(uow).createWithin(job, limit))) return false;
    await queue.enqueue(uow, queueNames[job.kind], { jobId: job.id } satisfies JobPayload, { id: job.id, accountId: job.accountId });
    return true;
  });
}

export const tooManyJobs = (kind: "export" | "import", limit: number) =>
  new AppError("too_many_jobs", `at most ${limit} ${kind} jobs may be queued or running at once; wait for one to finish`, { limit });
