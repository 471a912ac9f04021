// Export and import job rows: creating one under the account's limit, claiming queued or abandoned ones under a
// lease, progress, completion, expiry. Times are Unix seconds, leases milliseconds.
import { sql, type Kysely } from "kysely";
import type { Caller } from "@trove/contracts";

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
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
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

  /**
   * Inserts the job unless the account already has `limit` open jobs of this kind; false then. The count and the
   * insert are one step under a per-account lock, so parallel requests cannot both pass the last free place.
   */
  async createWithin(job: NewJob, limit: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`exports:${job.accountId}`}, 0))`.execute(tx);
      const open = await tx
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", job.accountId)
        .where("kind", "=", job.kind)
        .where("status", "in", ["queued", "running"])
        .executeTakeFirstOrThrow();
      if (Number(open.n) >= limit) return false;
      await tx
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
    });
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

  /**
   * Leases the oldest queued job, or a running one whose lease ran out (its replica stopped), to `owner`; counts
   * the attempt. Skips rows another replica is claiming.
   */
  async claim(owner: string, nowMs: number, leaseMs: number): Promise<JobRow | undefined> {
    const res = await sql<JobRow>`
      update exports.jobs set status = 'running', lease_owner = ${owner}, lease_until = ${nowMs + leaseMs}::int8,
        attempts = attempts + 1, started_at = coalesce(started_at, ${Math.floor(nowMs / 1000)}::int8)
      where id = (
        select id from exports.jobs
        where status = 'queued' or (status = 'running' and lease_until < ${nowMs}::int8)
        order by created_at, id
        limit 1
        for update skip locked
      )
      returning *`.execute(this.db);
    return res.rows[0];
  }

  /** Extends the lease while this owner holds it; false when it was lost (the job is someone else's now). */
  async renew(id: string, owner: string, untilMs: number): Promise<boolean> {
    const res = await this.db.updateTable(table).set({ lease_until: untilMs }).where("id", "=", id).where("lease_owner", "=", owner).where("status", "=", "running").executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Gives the lease back at once (a graceful stop): the next replica to look takes the job up without waiting. */
  async release(id: string, owner: string): Promise<void> {
    await this.db.updateTable(table).set({ lease_until: 0 }).where("id", "=", id).where("lease_owner", "=", owner).where("status", "=", "running").execute();
  }

  async setExportProgress(id: string, owner: string, itemCount: number): Promise<void> {
    await this.db.updateTable(table).set({ item_count: itemCount }).where("id", "=", id).where("lease_owner", "=", owner).execute();
  }

  /** A restarted export starts over: its counters too. */
  async resetExport(id: string, owner: string): Promise<void> {
    await this.db.updateTable(table).set({ item_count: 0, size_bytes: 0 }).where("id", "=", id).where("lease_owner", "=", owner).execute();
  }

  async completeExport(id: string, owner: string, done: { blob: string; itemCount: number; sizeBytes: number; now: number; expiresAt: number }): Promise<boolean> {
    const res = await this.db
      .updateTable(table)
      .set({ status: "completed", blob: done.blob, item_count: done.itemCount, size_bytes: done.sizeBytes, completed_at: done.now, expires_at: done.expiresAt, lease_owner: null, lease_until: null })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .where("status", "=", "running")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async fail(id: string, owner: string | null, reason: string, now: number): Promise<void> {
    let q = this.db.updateTable(table).set({ status: "failed", error: reason, completed_at: now, lease_owner: null, lease_until: null }).where("id", "=", id);
    if (owner !== null) q = q.where("lease_owner", "=", owner);
    await q.execute();
  }

  async setEntries(id: string, owner: string, entries: number): Promise<void> {
    await this.db.updateTable(table).set({ entries }).where("id", "=", id).where("lease_owner", "=", owner).execute();
  }

  /**
   * One import batch's outcome in one transaction: counters, failure reasons and the pages left to fetch, so a
   * job resumed after a restart starts at the first entry not yet recorded. False when the lease was lost.
   */
  async recordImport(id: string, owner: string, p: ImportProgress): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const res = await tx
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
        .where("lease_owner", "=", owner)
        .where("status", "=", "running")
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      if (p.failures.length > 0) {
        await tx
          .insertInto("exports.import_failures")
          .values(p.failures.map((f) => ({ job_id: id, seq: f.seq, idx: f.idx, url: f.url, reason: f.reason })))
          .onConflict((oc) => oc.columns(["job_id", "seq"]).doNothing())
          .execute();
      }
      if (p.fetches.length > 0) {
        await tx
          .insertInto("exports.fetches")
          .values(p.fetches.map((f) => ({ job_id: id, item_id: f.itemId, host: f.host, state: "pending" })))
          .onConflict((oc) => oc.columns(["job_id", "item_id"]).doNothing())
          .execute();
        const hosts = [...new Set(p.fetches.map((f) => f.host))];
        await tx
          .insertInto("exports.fetch_hosts")
          .values(hosts.map((host) => ({ host, next_at: 0 })))
          .onConflict((oc) => oc.column("host").doNothing())
          .execute();
      }
      return true;
    });
  }

  /** `note`: what the summary should say beside the counts (a file that ended early). */
  async completeImport(id: string, owner: string, now: number, note: string | null): Promise<void> {
    await this.db
      .updateTable(table)
      .set({ status: "completed", completed_at: now, blob: null, error: note, lease_owner: null, lease_until: null })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
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

  /** Background fetch counts per job, by state. */
  async fetchCounts(jobIds: string[]): Promise<Map<string, { pending: number; fetched: number; failed: number }>> {
    const out = new Map<string, { pending: number; fetched: number; failed: number }>();
    if (jobIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("exports.fetches")
      .select(["job_id", "state", (eb) => eb.fn.countAll<number>().as("n")])
      .where("job_id", "in", jobIds)
      .groupBy(["job_id", "state"])
      .execute();
    for (const r of rows) {
      const c = out.get(r.job_id as string) ?? { pending: 0, fetched: 0, failed: 0 };
      const n = Number(r.n);
      if (r.state === "done") c.fetched += n;
      else if (r.state === "failed") c.failed += n;
      else c.pending += n;
      out.set(r.job_id as string, c);
    }
    return out;
  }

  /** Completed exports whose file is past its time: their blobs, to delete, and the rows then forget them. */
  async expired(now: number, limit: number): Promise<{ id: string; blob: string }[]> {
    return (await this.db
      .selectFrom(table)
      .select(["id", "blob"])
      .where("kind", "=", "export")
      .where("blob", "is not", null)
      .where("expires_at", "<=", now)
      .limit(limit)
      .execute()) as { id: string; blob: string }[];
  }

  async forgetBlob(id: string): Promise<void> {
    await this.db.updateTable(table).set({ blob: null }).where("id", "=", id).execute();
  }
}
