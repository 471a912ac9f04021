// Every query of the items schema. Kysely only; the owner's account id is part of every signature.
import { sql, type Kysely } from "kysely";

export interface ItemRow {
  id: string;
  account_id: string;
  url: string;
  url_hash: string;
  title: string;
  favicon: string;
  status: string;
  times_added: number;
  notes: string;
  source: string | null;
  created_at: number;
  updated_at: number;
  last_seen_at: number;
  processed_at: number | null;
  content_key: string | null;
  content_size: number;
  content_truncated: boolean;
  content_source: string | null;
  content_extracted_at: number | null;
  content_extract_error: string | null;
  content_markdown: string | null;
  content: unknown;
}

export interface NewItem {
  id: string;
  url: string;
  urlHash: string;
  title: string;
  source: string | null;
  now: number;
}

export interface ItemEventRow {
  id: string;
  type: string;
  itemId: string;
  changedAt: number;
  beforeScope: unknown;
  afterScope: unknown;
  payload: unknown;
}

export interface ListFilter {
  since?: number;
  until?: number;
  statuses: string[];
  source?: string;
  limit: number;
  offset: number;
}

/** Columns of a list row: everything but the (large) content, unless asked for. */
const listColumns = [
  "id", "account_id", "url", "url_hash", "title", "favicon", "status", "times_added", "notes", "source",
  "created_at", "updated_at", "last_seen_at", "processed_at", "content_key", "content_size", "content_truncated",
  "content_source", "content_extracted_at", "content_extract_error",
] as const;

export class ItemsRepository {
  private readonly db: Kysely<any>;

  constructor(private readonly root: Kysely<any>) {
    this.db = root.withSchema("items");
  }

  /** Runs fn in one transaction, with a repository bound to it. */
  transaction<T>(fn: (repo: ItemsRepository) => Promise<T>): Promise<T> {
    return this.root.transaction().execute((trx) => fn(new ItemsRepository(trx)));
  }

  /** Inserts the item, or counts one more save of the same normalised URL. */
  async upsert(accountId: string, item: NewItem): Promise<{ id: string; inserted: boolean }> {
    const row = await this.db
      .insertInto("items")
      .values({
        id: item.id,
        account_id: accountId,
        url: item.url,
        url_hash: item.urlHash,
        title: item.title,
        source: item.source,
        created_at: item.now,
        updated_at: item.now,
        last_seen_at: item.now,
      })
      .onConflict((oc) =>
        oc.columns(["account_id", "url_hash"]).doUpdateSet({
          times_added: sql`items.times_added + 1`,
          last_seen_at: item.now,
        }),
      )
      // xmax is 0 only for a freshly inserted row: tells insert from update in one statement.
      .returning(["id", sql<boolean>`(xmax = 0)`.as("inserted")])
      .executeTakeFirstOrThrow();
    return { id: row.id as string, inserted: row.inserted as boolean };
  }

  async getById(accountId: string, id: string): Promise<ItemRow | undefined> {
    return (await this.db
      .selectFrom("items")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .executeTakeFirst()) as ItemRow | undefined;
  }

  async list(accountId: string, f: ListFilter, withContent: boolean): Promise<{ rows: ItemRow[]; total: number }> {
    let q = this.db.selectFrom("items").where("account_id", "=", accountId);
    if (f.since !== undefined) q = q.where("created_at", ">=", f.since);
    if (f.until !== undefined) q = q.where("created_at", "<=", f.until);
    if (f.statuses.length > 0) q = q.where("status", "in", f.statuses);
    if (f.source !== undefined) q = q.where("source", "=", f.source);
    const [rows, count] = await Promise.all([
      q
        .select(withContent ? [...listColumns, "content_markdown", "content"] : [...listColumns])
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(f.limit)
        .offset(f.offset)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as ItemRow[], total: count.n };
  }

  async addEvent(accountId: string, e: ItemEventRow): Promise<void> {
    await this.db
      .insertInto("item_events")
      .values({
        id: e.id,
        account_id: accountId,
        type: e.type,
        item_id: e.itemId,
        changed_at: e.changedAt,
        before_scope: e.beforeScope === null ? null : JSON.stringify(e.beforeScope),
        after_scope: e.afterScope === null ? null : JSON.stringify(e.afterScope),
        payload: JSON.stringify(e.payload),
      })
      .execute();
  }

  async countUp(accountId: string, periods: string[]): Promise<void> {
    for (const period of periods) {
      await this.db
        .insertInto("usage")
        .values({ account_id: accountId, period, count: 1 })
        .onConflict((oc) => oc.columns(["account_id", "period"]).doUpdateSet({ count: sql`usage.count + 1` }))
        .execute();
    }
  }

  async usage(accountId: string, periods: string[]): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom("usage")
      .select(["period", "count"])
      .where("account_id", "=", accountId)
      .where("period", "in", periods)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.period as string, r.count as number]));
  }
}
