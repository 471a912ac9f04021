// Export and import job rows: creating one under the account's limit, what a run writes (started, progress,
// completed, failed, waiting again), and expiry. When a job runs and under which
// lease is the work queue's business: a run writes here only inside the units of work the queue gives it (which
// check its lease). Times are Unix seconds.
import { sql, type Kysely } from "kysely";
import type { Caller } from "@trove/contracts";
import type { UnitOfWork } from "@trove/db";

export type JobKind = "export" | "import";
export type JobStatus = "queued" | "running" | "completed" | "failed";

export interface JobRow {
  id: string;
  account_id: string;
  kind: JobKind;
  status: JobStatus;
  format: string;
  params: Record<string, unknown>;
  caller: Caller;
  blob: string | null;
  file_name: string | null;
  size_bytes: number;
  item_count: number;
  entries: number;
  processed: number;
  created: number;
  present: number;
  failed: number;
  not_imported: number;
  stopped_by: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  expires_at: number | null;
}

export interface NewJob {
  id: string;
  accountId: string;
  kind: JobKind;
  format: string;
  params: Record<string, unknown>;
  caller: Caller;
  blob: string | null;
  fileName: string | null;
  sizeBytes: number;
  now: number;
}

/** What one import batch changed: added to the job's counters in the same statement that moves `processed`. */
export interface ImportProgress {
  processed: number;
  created: number;
  present: number;
  failed: number;
  notImported: number;
  stoppedBy: string | null;
  /** `seq`: the failure's place in the job's list (unique); `idx`: the entry's position as the file counts it. */
  failures: { seq: number; idx: number; url: string | null; reason: string }[];
  fetches: { itemId: string; host: string }[];
}

const table = "exports.jobs";

export class JobsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The same statements on a unit of work's transaction. */
  on(uow: UnitOfWork): JobsRepository {
    return new JobsRepository(uow.db);
  }

  /**
   * Inserts the job unless the account already has `limit` open jobs of this kind; false then. Runs in the
   * caller's unit of work (`on(uow)`), which enqueues the job's run with it: the count and the insert are one step
   * under a per-account lock held to its commit, so parallel requests cannot both pass the last free place.
   */
  async createWithin(job: NewJob, limit: number): Promise<boolean> {
    if (!this.db.isTransaction) throw new Error("createWithin runs in a unit of work: its lock lasts until the commit");
    await sql`select pg_advisory_xact_lock(hashtextextended(${`exports:${job.accountId}`}, 0))`.execute(this.db);
    const open = await this.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", job.accountId)
      .where("kind", "=", job.kind)
      .where("status", "in", ["queued", "running"])
      .executeTakeFirstOrThrow();
    if (Number(open.n) >= limit) return false;
    await this.db
      .insertInto(table)
      .values({
        id: job.id,
        account_id: job.accountId,
        kind: job.kind,
        status: "queued",
        format: job.format,
        params: JSON.stringify(job.params),
        caller: JSON.stringify(job.caller),
        blob: job.blob,
        file_name: job.fileName,
        size_bytes: job.sizeBytes,
        created_at: job.now,
      })
      .execute();
    return true;
  }

  /** `keyId`: only the jobs that key started (what a scoped key sees). */
  async get(accountId: string, kind: JobKind, id: string, keyId?: string): Promise<JobRow | undefined> {
    return (await this.owned(accountId, kind, keyId).selectAll().where("id", "=", id).executeTakeFirst()) as JobRow | undefined;
  }

  async list(accountId: string, kind: JobKind, limit: number, offset: number, keyId?: string): Promise<{ rows: JobRow[]; count: number }> {
    const rows = (await this.owned(accountId, kind, keyId)
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .offset(offset)
      .execute()) as JobRow[];
    const total = await this.owned(accountId, kind, keyId)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return { rows, count: Number(total.n) };
  }

  private owned(accountId: string, kind: JobKind, keyId: string | undefined) {
    const q = this.db.selectFrom(table).where("account_id", "=", accountId).where("kind", "=", kind);
    return keyId === undefined ? q : q.where(sql`caller->>'keyId'`, "=", keyId);
  }

  /** A job as its run reads it (the queue's job id is the job's id). */
  async byId(id: string): Promise<JobRow | undefined> {
    return (await this.db.selectFrom(table).selectAll().where("id", "=", id).executeTakeFirst()) as JobRow | undefined;
  }

  /** A run begins: the job shows as running; `startOver` (an export) also zeroes what an earlier run counted. */
  async start(id: string, now: number, startOver: boolean): Promise<void> {
    await this.db
      .updateTable(table)
      .set({ status: "running", started_at: sql`coalesce(started_at, ${now}::int8)`, ...(startOver ? { item_count: 0, size_bytes: 0 } : {}) })
      .where("id", "=", id)
      .execute();
  }

  /** The run stopped short and the job waits for its next one (a retry, or given back by a stopping replica). */
  async requeue(id: string): Promise<void> {
    await this.db.updateTable(table).set({ status: "queued" }).where("id", "=", id).where("status", "=", "running").execute();
  }

  async setExportProgress(id: string, itemCount: number): Promise<void> {
    await this.db.updateTable(table).set({ item_count: itemCount }).where("id", "=", id).execute();
  }

  async completeExport(id: string, done: { blob: string; itemCount: number; sizeBytes: number; now: number; expiresAt: number }): Promise<void> {
    await this.db
      .updateTable(table)
      .set({ status: "completed", blob: done.blob, item_count: done.itemCount, size_bytes: done.sizeBytes, completed_at: done.now, expires_at: done.expiresAt })
      .where("id", "=", id)
      .execute();
  }

  /** The job failed for good with its reason (an open job only: a completed one stays completed). */
  async fail(id: string, reason: string, now: number): Promise<void> {
    await this.db.updateTable(table).set({ status: "failed", error: reason, completed_at: now }).where("id", "=", id).where("status", "in", ["queued", "running"]).execute();
  }

  async setEntries(id: string, entries: number): Promise<void> {
    await this.db.updateTable(table).set({ entries }).where("id", "=", id).execute();
  }

  /**
   * One import batch's outcome: counters and failure reasons, in the run's unit of work with the pages it leaves to
   * fetch, so a job resumed after a restart starts at the first entry not yet recorded.
   */
  async recordImport(id: string, p: ImportProgress): Promise<void> {
    await this.db
      .updateTable(table)
      .set({
        processed: sql`processed + ${p.processed}::int8`,
        created: sql`created + ${p.created}::int8`,
        present: sql`present + ${p.present}::int8`,
        failed: sql`failed + ${p.failed}::int8`,
        not_imported: sql`not_imported + ${p.notImported}::int8`,
        ...(p.stoppedBy ? { stopped_by: p.stoppedBy } : {}),
      })
      .where("id", "=", id)
      .execute();
    if (p.failures.length > 0) {
      await this.db
        .insertInto("exports.import_failures")
        .values(p.failures.map((f) => ({ job_id: id, seq: f.seq, idx: f.idx, url: f.url, reason: f.reason })))
        .onConflict((oc) => oc.columns(["job_id", "seq"]).doNothing())
        .execute();
    }
  }

  /** `note`: what the summary should say beside the counts (a file that ended early). */
  async completeImport(id: string, now: number, note: string | null): Promise<void> {
    await this.db.updateTable(table).set({ status: "completed", completed_at: now, blob: null, error: note }).where("id", "=", id).execute();
  }

  async failures(jobId: string, limit: number, offset: number): Promise<{ idx: number; url: string | null; reason: string }[]> {
    return (await this.db.selectFrom("exports.import_failures").select(["idx", "url", "reason"]).where("job_id", "=", jobId).orderBy("seq").limit(limit).offset(offset).execute()) as {
      idx: number;
      url: string | null;
      reason: string;
    }[];
  }

  async failureCount(jobId: string): Promise<number> {
    const row = await this.db.selectFrom("exports.import_failures").select((eb) => eb.fn.countAll<number>().as("n")).where("job_id", "=", jobId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A completed export's file and when it expires (Unix seconds). */
  async exportFile(id: string): Promise<{ blob: string | null; expiresAt: number | null } | undefined> {
    const row = await this.db.selectFrom(table).select(["blob", "expires_at"]).where("id", "=", id).where("kind", "=", "export").executeTakeFirst();
    return row && { blob: row.blob as string | null, expiresAt: row.expires_at === null ? null : Number(row.expires_at) };
  }

  async forgetBlob(id: string): Promise<void> {
    await this.db.updateTable(table).set({ blob: null }).where("id", "=", id).execute();
  }
}
