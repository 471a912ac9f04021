// The item event log (the outbox rows written with each change): positions in commit order, the relay's
// unpublished batches, and the change stream's pages. Kysely only.
import { sql, type Kysely } from "kysely";
import type { ItemEventMessage } from "@trove/contracts";

/** A logged event, in the shape the relay publishes (messageOf makes sure its int8 columns are numbers). */
export type LoggedEvent = ItemEventMessage;

// Advisory lock keys (per database): one assigner of positions at a time; one publisher at a time.
const assignLock = 7_361_001;
const publishLock = 7_361_002;
const assignBatch = 5_000;

const columns = [
  "position",
  "id",
  "account_id as accountId",
  "type",
  "item_id as itemId",
  "changed_at as changedAt",
  "before_scope as beforeScope",
  "after_scope as afterScope",
  "payload",
] as const;

export class EventLogRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** True when committed events still wait for a position. */
  async hasUnpositioned(): Promise<boolean> {
    const row = await this.db.selectFrom("items.item_events").select("seq").where("position", "is", null).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Gives the next positions to committed events without one, in write order. One assigner at a time (a lock
   * held to commit), so positions become visible in increasing order and a reader never passes a gap that fills later.
   */
  async assignPositions(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${assignLock})`.execute(trx);
      const res = await sql`
        with next as (select seq, row_number() over (order by seq) as rn
                        from (select seq from items.item_events where position is null order by seq limit ${assignBatch}) s),
             head as (select coalesce(max(position), 0) as p from items.item_events)
        update items.item_events e set position = head.p + next.rn
          from next, head where e.seq = next.seq`.execute(trx);
      return Number(res.numAffectedRows ?? 0);
    });
  }

  /**
   * Runs `publish` on the oldest positioned, unpublished events and marks them published in the same transaction.
   * Answers how many were published, or -1 when another process holds the publisher's lock.
   */
  async publishBatch(limit: number, publish: (events: LoggedEvent[]) => Promise<void>, now: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${publishLock}) as ok`.execute(trx);
      if (!rows[0]?.ok) return -1;
      const batch = (await trx
        .selectFrom("items.item_events")
        .select(columns)
        .where("published_at", "is", null)
        .where("position", "is not", null)
        .orderBy("position")
        .limit(limit)
        .execute()) as LoggedEvent[];
      if (batch.length === 0) return 0;
      await publish(batch);
      await trx
        .updateTable("items.item_events")
        .set({ published_at: now })
        .where("published_at", "is", null)
        .where("position", ">=", batch[0]!.position)
        .where("position", "<=", batch.at(-1)!.position)
        .execute();
      return batch.length;
    });
  }

  /** The account's events after a position, oldest first. */
  async after(accountId: string, position: number, limit: number): Promise<LoggedEvent[]> {
    return (await this.db
      .selectFrom("items.item_events")
      .select(columns)
      .where("account_id", "=", accountId)
      .where("position", ">", position)
      .orderBy("position")
      .limit(limit)
      .execute()) as LoggedEvent[];
  }

  /** The position just before the account's first event at or after a time (ms); the walk starts after it. */
  async positionBefore(accountId: string, changedAtMs: number): Promise<number> {
    const row = await this.db
      .selectFrom("items.item_events")
      .select((eb) => eb.fn.min<number>("position").as("p"))
      .where("account_id", "=", accountId)
      .where("position", "is not", null)
      .where("changed_at", ">=", changedAtMs)
      .executeTakeFirst();
    return row?.p == null ? this.head(accountId) : Number(row.p) - 1;
  }

  /** True when the account's item was deleted (its item.deleted event is kept), as opposed to never existing. */
  async wasDeleted(accountId: string, itemId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("items.item_events")
      .select("seq")
      .where("account_id", "=", accountId)
      .where("item_id", "=", itemId)
      .where("type", "=", "item.deleted")
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The account's last position (0 before any event). */
  async head(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom("items.item_events")
      .select((eb) => eb.fn.max<number>("position").as("p"))
      .where("account_id", "=", accountId)
      .where("position", "is not", null)
      .executeTakeFirst();
    return row?.p == null ? 0 : Number(row.p);
  }
}
