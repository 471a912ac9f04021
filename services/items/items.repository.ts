// Every query of the items table and the usage counters. Kysely only; the owner's account id is part of every
// signature. Events are the services' to record (item-events.ts), in the unit of work `transaction` hands over.
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from "kysely";
import type { KeyScope } from "@trove/contracts";
import { compileOnce, inTransaction, planEachTimeMarker, type UnitOfWork } from "@trove/db";
import { documentsMatching, withIndexPlans } from "@trove/search";
import type { ItemFilter } from "./item-filter.ts";
import { ListCountsRepository } from "./list-counts.repository.ts";

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
  /** The capture the stored content came from (UUIDv7: later captures sort after earlier ones). */
  content_capture_id: string | null;
  content_markdown?: string | null;
  content?: unknown;
  /** Attached by reads: the item's tags (in the order added) and collections (newest first). */
  tag_list: { name: string; slug: string }[];
  collection_list: { id: string; name: string; slug: string }[];
  highlight_count: number;
  highlight_list?: unknown[] | null;
}

export interface NewItem {
  id: string;
  url: string;
  urlHash: string;
  title: string;
  source: string | null;
  now: number;
}

/** An item an import adds, with the state it had where it came from. */
export interface ImportedItem {
  id: string;
  url: string;
  urlHash: string;
  title: string;
  status: string;
  notes: string;
  source: string | null;
  /** The original save time (in the past); the item's updated_at is `now`. */
  createdAt: number;
  processedAt: number | null;
  now: number;
}

export type { ItemFilter } from "./item-filter.ts";

export interface Page {
  limit: number;
  offset: number;
}

export interface ContentUpdate {
  title?: string;
  favicon?: string;
  contentKey: string | null;
  contentSize: number;
  contentTruncated: boolean;
  contentSource: string | null;
  contentExtractedAt: number | null;
  contentExtractError: string | null;
  contentMarkdown: string | null;
  content: unknown;
  /** The capture this content came from; unchanged when undefined (a failed capture keeps the content). */
  captureId?: string;
  now: number;
}

/** Columns of a list row: everything but the (large) content, unless asked for. */
const metaColumns = [
  "id", "account_id", "url", "url_hash", "title", "favicon", "status", "times_added", "notes", "source",
  "created_at", "updated_at", "last_seen_at", "processed_at", "content_key", "content_size", "content_truncated",
  "content_source", "content_extracted_at", "content_extract_error", "content_capture_id", "highlight_count",
] as const;

type Q = SelectQueryBuilder<any, any, any>;

// Each row carries its tags and collections (kept by refreshLists); highlights are read only when it has some.
const tagList = sql<{ name: string; slug: string }[]>`tags`.as("tag_list");
const collectionList = sql<{ id: string; name: string; slug: string }[]>`collections`.as("collection_list");

type GetShape = { content: boolean; lock: boolean };

/**
 * `id = any($1)`: one array parameter however many ids, where `in (...)` binds one parameter each and fails
 * past PostgreSQL's 65,535 (a tag on 70,000 items).
 */
const idIn = (ids: string[], column = "id") => sql<boolean>`${sql.ref(column)} = any(${ids}::text[])`;

/** Ids per statement for large id sets, so no one statement (synchronous on PGlite) runs long. */
const idsPerStatement = 5_000;

function chunks<T>(all: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size));
  return out;
}

/** The account's tag ids of some slugs (an InitPlan: looked up once per statement). */
const tagIdsOf = (accountId: string, slugs: string[]) => (eb: ExpressionBuilder<any, any>) =>
  eb.selectFrom("items.tags").select("id").where("account_id", "=", accountId).where("slug", "in", slugs);

/**
 * The item (`items.items.id`) carries the tag (all: filters) or one of the tags (any: key scopes). An `exists`
 * per item probes item_tags' primary key, so a page walks the list's own order and stops at its limit; a
 * subquery of every tagged id would first collect them all (15,000 at 100k items).
 */
const carries = (accountId: string, slug: string[]) => (eb: ExpressionBuilder<any, any>) =>
  eb.exists(
    eb
      .selectFrom("items.item_tags as it")
      .select(sql.lit(1).as("one"))
      .whereRef("it.item_id", "=", "items.items.id")
      .where("it.tag_id", "in", tagIdsOf(accountId, slug)),
  );

/**
 * Items carrying all the slugs (filters) or any (key scopes). Several required tags are intersected first, from
 * item_tags' (tag_id, item_id) index alone, and the few items left fetched by id: probing every item in list
 * order would walk the whole library when the intersection is small or empty.
 */
const withTags = (accountId: string, slugs: string[], match: "all" | "any") => (eb: ExpressionBuilder<any, any>) => {
  const unique = [...new Set(slugs)];
  if (match === "any" || unique.length === 1) return carries(accountId, unique)(eb);
  const tagged = unique.map((slug) => sql`select item_id from items.item_tags where tag_id in (${tagIdsOf(accountId, [slug])(eb)})`);
  return eb(sql.ref("items.items.id"), "=", sql`any(array(${sql.join(tagged, sql` intersect `)}))`);
};

/** Ids of the items in a collection. */
const inCollection = (collectionId: string) => (eb: ExpressionBuilder<any, any>) =>
  eb.selectFrom("items.item_collections").select("item_id").where("collection_id", "=", collectionId);

const highlightsOf = compileOnce(["accountId", "itemId"] as const, (p, db) =>
  db
    .selectFrom("items.highlights")
    .select([
      "id",
      "item_id as itemId",
      "text",
      "prefix",
      "suffix",
      "note",
      "start_offset as startOffset",
      "end_offset as endOffset",
      "created_at as createdAt",
      "updated_at as updatedAt",
    ])
    .where("account_id", "=", p.accountId)
    .where("item_id", "=", p.itemId)
    .orderBy("created_at")
    .orderBy("id"),
);

export class ItemsRepository {
  /** The item read is the hottest query: one compiled form per shape (with content, with highlights). */
  private static readonly getQueries = new Map<string, ReturnType<typeof compileOnce<"accountId" | "id", ItemRow>>>();

  private readonly db: Kysely<any>;

  constructor(private readonly root: Kysely<any>) {
    this.db = root;
  }

  /** The connection (or transaction) this repository runs on, for sibling repositories in the same transaction. */
  get kysely(): Kysely<any> {
    return this.root;
  }

  /** Runs fn in one unit of work, with a repository bound to its transaction (events are recorded in `uow`). */
  transaction<T>(fn: (repo: ItemsRepository, uow: UnitOfWork) => Promise<T>): Promise<T> {
    return inTransaction(this.root, (uow) => fn(new ItemsRepository(uow.db), uow));
  }

  /** Inserts the item, or counts one more save of the same normalised URL. */
  async upsert(accountId: string, item: NewItem): Promise<{ id: string; inserted: boolean }> {
    const row = await this.db
      .insertInto("items.items")
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
          updated_at: item.now,
        }),
      )
      // xmax is 0 only for a freshly inserted row: tells insert from update in one statement.
      .returning(["id", sql<boolean>`(xmax = 0)`.as("inserted")])
      .executeTakeFirstOrThrow();
    return { id: row.id as string, inserted: row.inserted as boolean };
  }

  /**
   * Inserts an imported item unless its URL is saved already (then false: a concurrent save or import won, and
   * the caller merges into that one). A concurrent insert of the same URL waits here until the other commits.
   */
  async insertImported(accountId: string, item: ImportedItem): Promise<boolean> {
    const row = await this.db
      .insertInto("items.items")
      .values({
        id: item.id,
        account_id: accountId,
        url: item.url,
        url_hash: item.urlHash,
        title: item.title,
        status: item.status,
        notes: item.notes,
        source: item.source,
        created_at: item.createdAt,
        updated_at: item.now,
        last_seen_at: item.createdAt,
        processed_at: item.processedAt,
      })
      .onConflict((oc) => oc.columns(["account_id", "url_hash"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The ids of the items saved under any of these URL hashes, by hash (one query for a whole import batch). */
  async idsByHash(accountId: string, hashes: string[]): Promise<Map<string, string>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.db.selectFrom("items.items").select(["id", "url_hash"]).where("account_id", "=", accountId).where(idIn(hashes, "url_hash")).execute();
    return new Map(rows.map((r) => [r.url_hash as string, r.id as string]));
  }

  async findByHash(accountId: string, urlHash: string): Promise<ItemRow | undefined> {
    return (await this.db
      .selectFrom("items.items")
      .select([...metaColumns, tagList, collectionList])
      .where("account_id", "=", accountId)
      .where("url_hash", "=", urlHash)
      .executeTakeFirst()) as ItemRow | undefined;
  }

  /**
   * One item the caller may see (its scope applied), with content and highlights when asked. `lock` (inside a
   * transaction) holds the row until commit, so a concurrent delete or capture waits instead of interleaving.
   */
  async getById(
    accountId: string,
    id: string,
    opts: { content?: boolean; highlights?: boolean; scope?: KeyScope | null; lock?: boolean } = {},
  ): Promise<ItemRow | undefined> {
    let row: ItemRow | undefined;
    if (!opts.scope) {
      [row] = await this.getQuery({ content: opts.content === true, lock: opts.lock === true })(this.root, { accountId, id });
    } else {
      const q = this.applyScope(this.db.selectFrom("items.items").where("account_id", "=", accountId).where("id", "=", id) as Q, accountId, opts.scope);
      row = (await q
        .select([...metaColumns, tagList, collectionList])
        .$if(opts.content === true, (qb) => qb.select(["content_markdown", "content"]))
        .$if(opts.lock === true, (qb) => qb.forUpdate())
        .executeTakeFirst()) as ItemRow | undefined;
    }
    if (row && opts.highlights && row.highlight_count > 0) row.highlight_list = await highlightsOf(this.root, { accountId, itemId: id });
    return row;
  }

  private getQuery(shape: GetShape) {
    const key = `${shape.content}/${shape.lock}`;
    let run = ItemsRepository.getQueries.get(key);
    if (!run) {
      run = compileOnce(["accountId", "id"] as const, (p, db) =>
        db
          .selectFrom("items.items")
          .where("account_id", "=", p.accountId)
          .where("id", "=", p.id)
          .select([...metaColumns, tagList, collectionList])
          .$if(shape.content, (qb) => qb.select(["content_markdown", "content"]))
          .$if(shape.lock, (qb) => qb.forUpdate()),
      );
      ItemsRepository.getQueries.set(key, run);
    }
    return run;
  }

  /** Recomputes the items' tag, collection and highlight-count columns from the link tables. */
  async refreshLists(accountId: string, itemIds: string[]): Promise<void> {
    for (const ids of chunks(itemIds, idsPerStatement)) {
      await sql`update items.items i set
        tags = coalesce((select jsonb_agg(jsonb_build_object('name', t.name, 'slug', t.slug) order by it.added_at, t.slug)
          from items.item_tags it join items.tags t on t.id = it.tag_id where it.item_id = i.id), '[]'::jsonb),
        collections = coalesce((select jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'slug', c.slug) order by ic.added_at desc, c.slug)
          from items.item_collections ic join items.collections c on c.id = ic.collection_id where ic.item_id = i.id), '[]'::jsonb),
        highlight_count = (select count(*) from items.highlights h where h.item_id = i.id)
        where i.account_id = ${accountId} and ${idIn(ids, "i.id")}`.execute(this.root);
    }
  }

  /** Ids among `ids` that belong to the account and its scope, with their rows (locked until commit with `lock`). */
  async getMany(accountId: string, ids: string[], scope: KeyScope | null, opts: { lock?: boolean } = {}): Promise<ItemRow[]> {
    const rows: ItemRow[] = [];
    for (const chunk of chunks(ids, idsPerStatement)) {
      const q = this.applyScope(this.db.selectFrom("items.items").where("account_id", "=", accountId).where(idIn(chunk)) as Q, accountId, scope);
      rows.push(
        ...((await q
          .select([...metaColumns, tagList, collectionList])
          .$if(opts.lock === true, (qb) => qb.orderBy("id").forUpdate())
          .execute()) as ItemRow[]),
      );
    }
    return rows;
  }

  /**
   * A page of the list, newest first. With a content budget the page is chosen from the rows' stored sizes first
   * and content is read only for the rows that fit (at least one), so a page never holds more than the budget.
   */
  async list(accountId: string, f: ItemFilter, page: Page, contentBudget: number | null): Promise<{ rows: ItemRow[]; total: number }> {
    // Narrowed by the search index: the matching ids first, from its GIN index alone (a scan, or a probe per item,
    // would detoast every document); the list itself is planned as usual, for that set each time (unprepared), so
    // the set is one constant, hashed. The ids travel as one text: a text[] of 30,000 ids costs more to parse and
    // send back than the list takes.
    let once = (qb: Q) => qb;
    if (f.q) {
      const matching = documentsMatching("items.search_docs", accountId, f.q);
      const ids = await withIndexPlans(this.root, (trx) =>
        trx.selectNoFrom((eb) => sql<string | null>`(${eb.selectFrom(matching(eb).as("m")).select(sql<string>`string_agg(m.id, ',')`.as("ids"))})`.as("ids")).executeTakeFirstOrThrow(),
      );
      f = { ...f, q: undefined, idList: ids.ids ?? "" };
      once = (qb: Q) => qb.modifyFront(sql.raw(planEachTimeMarker)) as Q;
    }
    const q = this.filtered(accountId, f);
    const [listed, total] = await Promise.all([
      once(q).select([...metaColumns, tagList, collectionList]).orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).offset(page.offset).execute(),
      this.count(accountId, f, once),
    ]);
    let rows = listed as ItemRow[];
    if (contentBudget !== null && rows.length > 0) {
      let used = 0;
      let fit = 0;
      while (fit < rows.length && (fit === 0 || used + rows[fit]!.content_size <= contentBudget)) used += rows[fit++]!.content_size;
      rows = rows.slice(0, fit);
      await this.addContents(accountId, rows);
    }
    return { rows, total };
  }

  /**
   * A page of the items passing the filter and scope in id order after `after` (an export's keyset walk, on the
   * (account_id, id) index), without content.
   */
  async pageInIdOrder(accountId: string, f: ItemFilter, after: string | null, limit: number): Promise<ItemRow[]> {
    let q = this.filtered(accountId, f);
    if (after !== null) q = q.where("id", ">", after);
    return (await q.select([...metaColumns, tagList, collectionList]).orderBy("id").limit(limit).execute()) as ItemRow[];
  }

  /** The Markdown of those of these items that have some. */
  async markdowns(accountId: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const chunk of chunks(ids, idsPerStatement)) {
      const rows = await this.db
        .selectFrom("items.items")
        .select(["id", "content_markdown"])
        .where("account_id", "=", accountId)
        .where(idIn(chunk))
        .where("content_markdown", "is not", null)
        .execute();
      for (const r of rows) out.set(r.id as string, r.content_markdown as string);
    }
    return out;
  }

  /** Reads the rows' structured content and Markdown into them. */
  async addContents(accountId: string, rows: ItemRow[]): Promise<void> {
    const byId = new Map<string, Record<string, unknown>>();
    for (const ids of chunks(rows.map((r) => r.id), idsPerStatement)) {
      const contents = await this.db.selectFrom("items.items").select(["id", "content_markdown", "content"]).where("account_id", "=", accountId).where(idIn(ids)).execute();
      for (const c of contents) byId.set(c.id as string, c);
    }
    for (const r of rows) {
      const c = byId.get(r.id);
      r.content_markdown = (c?.content_markdown as string | null | undefined) ?? null;
      r.content = c?.content ?? null;
    }
  }

  /** The list's count: from the counter rows when they keep this list, else by counting its items. */
  async count(accountId: string, f: ItemFilter, once = (qb: Q) => qb): Promise<number> {
    const counted = await new ListCountsRepository(this.root).count(accountId, f);
    if (counted !== undefined) return counted;
    const row = await once(this.filtered(accountId, f)).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    return row.n;
  }

  async countByStatus(accountId: string, scope: KeyScope | null): Promise<Record<string, number>> {
    if (!scope) return new ListCountsRepository(this.root).byStatus(accountId);
    const rows = await this.applyScope(this.db.selectFrom("items.items").where("account_id", "=", accountId), accountId, scope)
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("status")
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
  }

  /** The ids of the account's items passing the filters and scope: a subquery (the search engine narrows by it). */
  filteredIds(accountId: string, f: ItemFilter): SelectQueryBuilder<any, any, { id: string }> {
    return this.filtered(accountId, f).select("id");
  }

  /**
   * The filters as the search engine takes them: the statuses as such (the index mirrors each item's status), the
   * rest as an id subquery, left out when nothing else narrows (the common case: no join over all items).
   */
  searchFilter(accountId: string, f: ItemFilter): { statuses?: string[]; restrict?: SelectQueryBuilder<any, any, { id: string }> } {
    const { statuses, ...rest } = f;
    const given = Object.entries(rest).filter(([, v]) => v !== undefined && v !== null && v !== false && !(Array.isArray(v) && v.length === 0));
    const status = statuses && statuses.length > 0 ? statuses : undefined;
    if (given.length === 0) return { statuses: status };
    // Tags alone (the common narrowing): the tagged ids straight from item_tags' (tag_id, item_id) index, the
    // account's own tags only; through items, each tagged item was joined to its row (3-6x slower at 15,000).
    if (given.length === 1 && given[0]![0] === "tagSlugs") {
      const tagged = [...new Set(f.tagSlugs!)].map((slug) =>
        this.db.selectFrom("items.item_tags").select("item_id as id").where("tag_id", "in", tagIdsOf(accountId, [slug])),
      );
      return { statuses: status, restrict: tagged.slice(1).reduce((all, one) => all.intersect(one), tagged[0]!) as SelectQueryBuilder<any, any, { id: string }> };
    }
    return { statuses: status, restrict: this.filteredIds(accountId, rest) };
  }

  private filtered(accountId: string, f: ItemFilter): Q {
    let q = this.db.selectFrom("items.items").where("account_id", "=", accountId) as Q;
    if (f.since !== undefined) q = q.where("created_at", ">=", f.since);
    if (f.until !== undefined) q = q.where("created_at", "<=", f.until);
    if (f.statuses && f.statuses.length > 0) q = q.where("status", "in", f.statuses);
    if (f.unprocessedOnly) q = q.where("processed_at", "is", null);
    if (f.withContent) q = q.where("content_markdown", "is not", null);
    if (f.source !== undefined) {
      const host = f.source.toLowerCase().replace(/^www\./, "");
      q = q.where((eb) =>
        eb.or([
          eb("source", "=", f.source!),
          eb(sql`regexp_replace(split_part(split_part(url, '://', 2), '/', 1), '^www\\.', '')`, "=", host),
        ]),
      );
    }
    if (f.tagSlugs && f.tagSlugs.length > 0) q = q.where(withTags(accountId, f.tagSlugs, "all"));
    if (f.collectionId !== undefined) q = q.where("id", "in", inCollection(f.collectionId));
    // The search index (items.search_docs), kept by the search consumer: words, phrases, OR, -exclusion, prefix.
    if (f.q) q = q.where("id", "in", documentsMatching("items.search_docs", accountId, f.q));
    if (f.idList !== undefined) q = q.where(sql<boolean>`id = any(string_to_array(${f.idList}::text, ','))`);
    return this.applyScope(q, accountId, f.scope ?? null);
  }

  /** A scoped key sees only items carrying one of its tags, or in its collection. */
  private applyScope(q: Q, accountId: string, scope: KeyScope | null): Q {
    if (!scope) return q;
    if (scope.tagSlugs && scope.tagSlugs.length > 0) q = q.where(withTags(accountId, scope.tagSlugs, "any"));
    if (scope.collectionId) q = q.where("id", "in", inCollection(scope.collectionId));
    return q;
  }

  async updateFields(
    accountId: string,
    id: string,
    set: Partial<{ title: string; notes: string; status: string; processed_at: number | null; updated_at: number }>,
  ): Promise<void> {
    if (Object.keys(set).length === 0) return;
    await this.db.updateTable("items.items").set(set).where("account_id", "=", accountId).where("id", "=", id).execute();
  }

  async setContent(accountId: string, id: string, c: ContentUpdate): Promise<void> {
    await this.db
      .updateTable("items.items")
      .set({
        ...(c.title !== undefined ? { title: c.title } : {}),
        ...(c.favicon !== undefined ? { favicon: c.favicon } : {}),
        content_key: c.contentKey,
        content_size: c.contentSize,
        content_truncated: c.contentTruncated,
        content_source: c.contentSource,
        content_extracted_at: c.contentExtractedAt,
        content_extract_error: c.contentExtractError,
        content_markdown: c.contentMarkdown,
        content: c.content === null ? null : JSON.stringify(c.content),
        ...(c.captureId !== undefined ? { content_capture_id: c.captureId } : {}),
        updated_at: c.now,
      })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .execute();
  }

  async deleteMany(accountId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const res = await this.db.deleteFrom("items.items").where("account_id", "=", accountId).where("id", "in", ids).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /**
   * Counts one more item in `period` only while its count is below `limit`, in one statement: concurrent saves
   * queue on the counter row and each sees the count the previous one left. False when the limit is reached.
   */
  async countUpWithin(accountId: string, period: string, limit: number): Promise<boolean> {
    const { rows } = await sql`insert into items.usage (account_id, period, count)
      select ${accountId}, ${period}, 1 where ${limit}::int8 >= 1
      on conflict (account_id, period) do update set count = items.usage.count + 1 where items.usage.count < ${limit}::int8
      returning count`.execute(this.db);
    return rows.length === 1;
  }

  async countUp(accountId: string, periods: string[]): Promise<void> {
    for (const period of periods) {
      await this.db
        .insertInto("items.usage")
        .values({ account_id: accountId, period, count: 1 })
        .onConflict((oc) => oc.columns(["account_id", "period"]).doUpdateSet({ count: sql`usage.count + 1` }))
        .execute();
    }
  }

  /** Gives back one item in each period (a save withdrawn before anyone could rely on it). */
  async countDown(accountId: string, periods: string[]): Promise<void> {
    await this.db
      .updateTable("items.usage")
      .set({ count: sql`greatest(count - 1, 0)` })
      .where("account_id", "=", accountId)
      .where("period", "in", periods)
      .execute();
  }

  async usage(accountId: string, periods: string[]): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom("items.usage")
      .select(["period", "count"])
      .where("account_id", "=", accountId)
      .where("period", "in", periods)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.period as string, r.count as number]));
  }
}
