// Every query of sources. Kysely only; the owner's account id is part of every signature that touches one source.
import { sql, type Kysely } from "kysely";
import type { SourceType } from "@trove/contracts";
import { newestFirstPage } from "./page.ts";

export type SourceStatus = "syncing" | "paused";

export interface SmartTagRule {
  field: "title" | "url" | "author" | "content" | "any";
  contains: string;
  tags: string[];
}

export interface SourceSettings {
  defaultTags: string[];
  smartTagRules: SmartTagRule[];
  expandFullContent: boolean;
  autoSummarize: boolean;
  rollupEnabled: boolean;
}

export interface SourceRow {
  id: string;
  account_id: string;
  type: SourceType;
  name: string;
  status: SourceStatus;
  target: string;
  inbox_address: string | null;
  poll_every_min: number;
  next_poll_at: number | null;
  last_run_at: number | null;
  last_success_at: number | null;
  last_error: string | null;
  consecutive_failures: number;
  item_count: number;
  config: Record<string, unknown>;
  settings: SourceSettings;
  cursors: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

export interface NewSource {
  id: string;
  type: SourceType;
  name: string;
  target: string;
  inboxAddress: string | null;
  pollEveryMin: number;
  nextPollAt: number | null;
  lastError: string | null;
  config: Record<string, unknown>;
  settings: SourceSettings;
  cursors: Record<string, unknown>;
  now: number;
}

export interface SourceChanges {
  name?: string;
  pollEveryMin?: number;
  settings?: SourceSettings;
}

const table = "sources.sources";

export class SourcesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Inserts the source, or answers the equal one already there (same account, type and target). */
  async insertOrFind(accountId: string, s: NewSource): Promise<{ row: SourceRow; created: boolean }> {
    const made = (await this.db
      .insertInto(table)
      .values({
        id: s.id,
        account_id: accountId,
        type: s.type,
        name: s.name,
        status: "syncing",
        target: s.target,
        inbox_address: s.inboxAddress,
        poll_every_min: s.pollEveryMin,
        next_poll_at: s.nextPollAt,
        last_error: s.lastError,
        config: JSON.stringify(s.config),
        settings: JSON.stringify(s.settings),
        cursors: JSON.stringify(s.cursors),
        created_at: s.now,
        updated_at: s.now,
      })
      .onConflict((oc) => oc.columns(["account_id", "type", "target"]).doNothing())
      .returningAll()
      .executeTakeFirst()) as SourceRow | undefined;
    if (made) return { row: made, created: true };
    const existing = (await this.db
      .selectFrom(table)
      .selectAll()
      .where("account_id", "=", accountId)
      .where("type", "=", s.type)
      .where("target", "=", s.target)
      .executeTakeFirstOrThrow()) as SourceRow;
    return { row: existing, created: false };
  }

  async list(accountId: string, q: { type?: SourceType; limit: number; offset: number }): Promise<{ rows: SourceRow[]; count: number }> {
    let base = this.db.selectFrom(table).where("account_id", "=", accountId);
    if (q.type) base = base.where("type", "=", q.type);
    return newestFirstPage<SourceRow>(base, "created_at", q.limit, q.offset);
  }

  /** Every source of the account of these types, oldest first (an OPML export). */
  async ofTypes(accountId: string, types: SourceType[]): Promise<SourceRow[]> {
    return (await this.db
      .selectFrom(table)
      .selectAll()
      .where("account_id", "=", accountId)
      .where("type", "in", types)
      .orderBy("created_at")
      .orderBy("id")
      .execute()) as SourceRow[];
  }

  async get(accountId: string, id: string): Promise<SourceRow | undefined> {
    return (await this.db.selectFrom(table).selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst()) as
      | SourceRow
      | undefined;
  }

  async update(accountId: string, id: string, c: SourceChanges, now: number): Promise<SourceRow | undefined> {
    const set: Record<string, unknown> = { updated_at: now };
    if (c.name !== undefined) set.name = c.name;
    if (c.settings !== undefined) set.settings = JSON.stringify(c.settings);
    if (c.pollEveryMin !== undefined) {
      set.poll_every_min = c.pollEveryMin;
      // A shorter interval takes effect at once: the next poll is never further off than one new interval.
      set.next_poll_at = sql`case when next_poll_at is null then null else least(next_poll_at, ${now + c.pollEveryMin * 60}::int8) end`;
    }
    return (await this.db
      .updateTable(table)
      .set(set)
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst()) as SourceRow | undefined;
  }

  /** Pause (no next poll) or resume (due now; mail is taken again). Idempotent. */
  async setStatus(accountId: string, id: string, status: SourceStatus, nextPollAt: number | null, now: number): Promise<SourceRow | undefined> {
    return (await this.db
      .updateTable(table)
      .set({ status, next_poll_at: nextPollAt, updated_at: now })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst()) as SourceRow | undefined;
  }

  /** The email inbox at this address, whoever owns it (the mail listener looks recipients up before it knows an account). */
  async inboxAt(address: string): Promise<SourceRow | undefined> {
    return (await this.db.selectFrom(table).selectAll().where("type", "=", "email_inbox").where("inbox_address", "=", address.toLowerCase()).executeTakeFirst()) as
      | SourceRow
      | undefined;
  }

  /** What taking one message in did to an inbox: its item count, and lastError set (failed) or cleared. */
  async recordMail(accountId: string, id: string, o: { now: number; itemsAdded: number; error: string | null }): Promise<void> {
    await this.db
      .updateTable(table)
      .set({
        item_count: sql`item_count + ${o.itemsAdded}::int8`,
        last_run_at: o.now,
        last_error: o.error,
        ...(o.error === null ? { last_success_at: o.now } : {}),
        updated_at: o.now,
      })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .execute();
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom(table).where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
