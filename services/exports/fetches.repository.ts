// The background fetches of imports: claiming the next page whose host may be asked now (one request in flight per
// host, `gap` apart, across every replica) and recording how it went.
import { sql, type Kysely } from "kysely";

export interface FetchClaim {
  jobId: string;
  itemId: string;
  host: string;
  caller: unknown;
}

export class FetchesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /**
   * Takes one pending fetch (or one whose runner vanished) of a host that is free now, and blocks the host until
   * the fetch is recorded (or `leaseMs` passes). The host row's lock makes two replicas skip each other's host.
   */
  async claim(nowMs: number, leaseMs: number): Promise<FetchClaim | undefined> {
    return this.db.transaction().execute(async (tx) => {
      // The host first (a few hundred rows, each with an index probe for a waiting fetch), then one fetch of it:
      // joining every waiting fetch to its host made each claim a scan of all of them.
      const waiting = sql`(f.state = 'pending' or (f.state = 'running' and f.lease_until < ${nowMs}::int8))`;
      const host = await sql<{ host: string }>`
        select h.host from exports.fetch_hosts h
        where h.next_at <= ${nowMs}::int8
          and exists (select 1 from exports.fetches f where f.host = h.host and ${waiting})
        order by h.next_at
        limit 1
        for update of h skip locked`.execute(tx);
      const free = host.rows[0]?.host;
      if (free === undefined) return undefined;
      const found = await sql<{ job_id: string; item_id: string; caller: unknown }>`
        select f.job_id, f.item_id, j.caller
        from exports.fetches f join exports.jobs j on j.id = f.job_id
        where f.host = ${free} and ${waiting}
        order by f.job_id, f.item_id
        limit 1
        for update of f skip locked`.execute(tx);
      const row = found.rows[0];
      if (!row) return undefined;
      await sql`update exports.fetch_hosts set next_at = ${nowMs + leaseMs}::int8 where host = ${free}`.execute(tx);
      await sql`update exports.fetches set state = 'running', lease_until = ${nowMs + leaseMs}::int8
        where job_id = ${row.job_id} and item_id = ${row.item_id}`.execute(tx);
      return { jobId: row.job_id, itemId: row.item_id, host: free, caller: row.caller };
    });
  }

  /** Records the fetch and frees its host for the next one `gapMs` from now. */
  async finish(c: FetchClaim, ok: boolean, reason: string | null, nowMs: number, gapMs: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`update exports.fetches set state = ${ok ? "done" : "failed"}, reason = ${reason}, lease_until = null
        where job_id = ${c.jobId} and item_id = ${c.itemId}`.execute(tx);
      await sql`update exports.fetch_hosts set next_at = ${nowMs + gapMs}::int8 where host = ${c.host}`.execute(tx);
    });
  }

  /** The soonest time a waiting fetch may start (ms), or undefined when none waits. */
  async nextDue(): Promise<number | undefined> {
    // A claimed fetch holds its host's next_at at its lease's end, so the hosts' times alone say it.
    const res = await sql<{ at: number | null }>`
      select min(h.next_at) as at from exports.fetch_hosts h
      where exists (select 1 from exports.fetches f where f.host = h.host and f.state in ('pending', 'running'))`.execute(this.db);
    const at = res.rows[0]?.at;
    return at === null || at === undefined ? undefined : Number(at);
  }
}
