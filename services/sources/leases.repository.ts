// The scheduler's queries: claim due sources under a lease (one replica runs a source at a time; a replica that
// dies mid-run lets its lease expire), record a run's outcome and release the lease, and when the next poll is due.
import { sql, type Kysely } from "kysely";
import type { SourceRow } from "./sources.repository.ts";

export interface RunOutcome {
  now: number;
  ok: boolean;
  /** Failures count toward backoff; an unconfigured source (X without a bridge) is checked again later instead. */
  lastError: string | null;
  consecutiveFailures: number;
  nextPollAt: number;
  itemsAdded: number;
  cursors: Record<string, unknown>;
  /** The feed's title, when it becomes the source's name. */
  name?: string;
}

const table = "sources.sources";

export class LeasesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Leases up to `limit` due sources to `owner` until now + ttl, oldest due first; skips rows others are claiming. */
  async claimDue(owner: string, now: number, ttlSec: number, limit: number): Promise<SourceRow[]> {
    const res = await sql<SourceRow>`
      update sources.sources set lease_owner = ${owner}, lease_until = ${now + ttlSec}::int8
      where id in (
        select id from sources.sources
        where status = 'syncing' and next_poll_at <= ${now}::int8 and (lease_until is null or lease_until < ${now}::int8)
        order by next_poll_at
        limit ${limit}
        for update skip locked
      )
      returning *`.execute(this.db);
    return res.rows;
  }

  /**
   * Records a run and releases the lease, only while this owner still holds it. A source paused during the run
   * keeps no poll time; the item count grows by what the run added.
   */
  async finish(id: string, owner: string, o: RunOutcome): Promise<SourceRow | undefined> {
    return (await this.db
      .updateTable(table)
      .set({
        last_run_at: o.now,
        ...(o.ok ? { last_success_at: o.now } : {}),
        last_error: o.lastError,
        consecutive_failures: o.consecutiveFailures,
        next_poll_at: sql`case when status = 'syncing' then ${o.nextPollAt}::int8 else null end`,
        item_count: sql`item_count + ${o.itemsAdded}::int8`,
        cursors: JSON.stringify(o.cursors),
        ...(o.name !== undefined ? { name: o.name } : {}),
        lease_owner: null,
        lease_until: null,
      })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .returningAll()
      .executeTakeFirst()) as SourceRow | undefined;
  }

  /** When the next source can be claimed: its poll time, or after the lease another replica holds (null: none). */
  async nextDue(): Promise<number | null> {
    const row = await this.db
      .selectFrom(table)
      .select(sql<number | null>`min(greatest(next_poll_at, coalesce(lease_until + 1, 0)))`.as("at"))
      .where("status", "=", "syncing")
      .where("next_poll_at", "is not", null)
      .executeTakeFirst();
    return row?.at == null ? null : Number(row.at);
  }
}
