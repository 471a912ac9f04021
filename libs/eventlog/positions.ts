// Positions: each committed event gets the next one, in commit order. A row's `seq` is taken at insert, so a
// transaction that commits late leaves a lower `seq` behind rows already visible, and a reader walking by `seq`
// would skip it. Positions are given instead after the commit, by one assigner at a time (a lock held to its
// commit), so they become visible strictly in increasing order: a reader that has seen position N has seen every
// position below it, and a gap never fills in later.
import { nextTurn } from "@trove/db";
import { sql, type Kysely } from "kysely";

// Advisory lock key (per database) of the one assigner; the relay's publisher has its own.
const assignLock = 7_361_011;
// Rows numbered per transaction: small enough that one statement holds PGlite (and so every request) for tens of
// milliseconds, not hundreds (5,000 took 0.2-0.5 s on a busy machine; 1,000 about 45 ms).
const assignBatch = 1_000;

/** True when committed events still wait for a position. */
export async function hasUnpositioned(db: Kysely<any>): Promise<boolean> {
  const row = await db.selectFrom("eventlog.events").select("seq").where("position", "is", null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Numbers up to 5,000 committed events in write order; answers how many it numbered. */
async function assignBatchOf(db: Kysely<any>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${assignLock})`.execute(trx);
    // Numbering goes on from the floor when that is higher (an installation that moved an older log here).
    const res = await sql`
      with next as (select seq, row_number() over (order by seq) as rn
                      from (select seq from eventlog.events where position is null order by seq limit ${assignBatch}) s),
           head as (select greatest(coalesce((select max(position) from eventlog.events), 0),
                                    coalesce((select v from eventlog.meta where k = 'position_floor'), 0)) as p)
      update eventlog.events e set position = head.p + next.rn
        from next, head where e.seq = next.seq`.execute(trx);
    return Number(res.numAffectedRows ?? 0);
  });
}

/**
 * Gives positions to every event committed so far. Between batches the event loop gets a turn: on PGlite a chain
 * of statements would otherwise hold every request until the last batch (a tag deleted from 70,000 items).
 */
export async function assignPositions(db: Kysely<any>): Promise<void> {
  if (!(await hasUnpositioned(db))) return;
  while ((await assignBatchOf(db)) === assignBatch) await nextTurn();
}
