// The entries each source has seen (by the feed's key): an entry is claimed before its item is added and released
// when adding failed, so it becomes at most one item and a failed one is tried again next run. An inbox's entries
// are its messages (by Message-ID); a message's claim names its spool row, so a retried message knows its own.
import type { Kysely } from "kysely";

const table = "sources.entries";

export type EntryClaim = { kind: "new" | "mine" | "seen"; itemId: string | null };
/** Rows per insert: well under PostgreSQL's 65,535 bound parameters. */
const chunk = 1_000;

export class EntriesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Which of these keys the source has seen. */
  async seen(sourceId: string, keys: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < keys.length; i += chunk) {
      const rows = await this.db
        .selectFrom(table)
        .select("entry_key")
        .where("source_id", "=", sourceId)
        .where("entry_key", "in", keys.slice(i, i + chunk))
        .execute();
      for (const r of rows) out.add(r.entry_key as string);
    }
    return out;
  }

  /** Marks entries seen without items (backfill skipped them). */
  async markSeen(sourceId: string, keys: string[], now: number): Promise<void> {
    for (let i = 0; i < keys.length; i += chunk) {
      const values = keys.slice(i, i + chunk).map((k) => ({ source_id: sourceId, entry_key: k, item_id: null, seen_at: now }));
      if (values.length > 0) await this.db.insertInto(table).values(values).onConflict((oc) => oc.doNothing()).execute();
    }
  }

  /** Claims one entry; false when it was seen already. */
  async claim(sourceId: string, key: string, now: number): Promise<boolean> {
    const row = await this.db
      .insertInto(table)
      .values({ source_id: sourceId, entry_key: key, item_id: null, seen_at: now })
      .onConflict((oc) => oc.doNothing())
      .returning("entry_key")
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Claims one entry for a received message (its spool id): `new` when this claims it, `mine` when an earlier run of
   * the same message did (and the item it recorded, if it got that far), `seen` when another message had it.
   */
  async claimForMessage(sourceId: string, key: string, spoolId: string, now: number): Promise<EntryClaim> {
    // A claim released between the insert and the look (another message's add failed) is claimed again.
    for (let tries = 0; ; tries++) {
      const inserted = await this.db
        .insertInto(table)
        .values({ source_id: sourceId, entry_key: key, item_id: null, seen_at: now, spool_id: spoolId })
        .onConflict((oc) => oc.doNothing())
        .returning("entry_key")
        .executeTakeFirst();
      if (inserted) return { kind: "new", itemId: null };
      const row = await this.db.selectFrom(table).select(["item_id", "spool_id"]).where("source_id", "=", sourceId).where("entry_key", "=", key).executeTakeFirst();
      if (row || tries >= 2) return { kind: row?.spool_id === spoolId ? "mine" : "seen", itemId: (row?.item_id as string | null | undefined) ?? null };
    }
  }

  /** Gives back the claims a message holds in these sources (its item could not be added): a resend is tried again. */
  async releaseMessage(spoolId: string, sourceIds: string[]): Promise<void> {
    if (sourceIds.length === 0) return;
    await this.db.deleteFrom(table).where("spool_id", "=", spoolId).where("source_id", "in", sourceIds).execute();
  }

  async setItem(sourceId: string, key: string, itemId: string): Promise<void> {
    await this.db.updateTable(table).set({ item_id: itemId }).where("source_id", "=", sourceId).where("entry_key", "=", key).execute();
  }

  /** The item a seen entry became (null: seen without one, or not seen). */
  async itemOf(sourceId: string, key: string): Promise<string | null> {
    const row = await this.db.selectFrom(table).select("item_id").where("source_id", "=", sourceId).where("entry_key", "=", key).executeTakeFirst();
    return (row?.item_id as string | null | undefined) ?? null;
  }

  /** Gives a claimed entry back (its item could not be added): the next run tries it again. */
  async release(sourceId: string, key: string): Promise<void> {
    await this.db.deleteFrom(table).where("source_id", "=", sourceId).where("entry_key", "=", key).execute();
  }
}
