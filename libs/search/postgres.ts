// The PostgreSQL search engine (PGlite embedded, PostgreSQL distributed: the same SQL, pg_trgm on both).
// One row per document: a weighted tsvector holding every field twice, through the `simple` configuration (exact
// words, any language) and `english` (stems: "running" finds "run"), plus folded copies of the short fields for
// trigram typo tolerance. Queries OR the two configurations, so either reading of a word matches.
import { sql, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder } from "kysely";
import type { SearchDoc, SearchEngine, SearchHit, SearchQuery, SearchResult, Weight } from "./engine.ts";
import { indexText, prepareQuery, type PreparedQuery } from "./text.ts";

export interface PostgresEngineOptions {
  /** Schema-qualified table: id, account_id, doc and head tsvectors, updated_at, plus the fuzzy columns. */
  table: string;
  /** Fuzzy field name -> its column (text, with a pg_trgm GIN index). */
  fuzzyColumns: Record<string, string>;
  /** Below this many full-text matches, trigram matches on the fuzzy fields are added (after them). */
  fuzzyBelow?: number;
  /** A column mirroring the owner's status (kept by the table's triggers), for `SearchQuery.statuses`. */
  statusColumn?: string;
  /** Matches ranked at most (the newest); default `maxRanked`, TROVE_SEARCH_RANKED. */
  maxRanked?: number;
}

const weights: Weight[] = ["A", "B", "C", "D"];
/** Rows per upsert statement (6 parameters each). */
const docsPerStatement = 500;
/**
 * Characters of each weight-D field (content, a note's body) in the ranking vector `head`: a few KB to detoast per
 * ranked match rather than the whole document's 20 KB on average, enough to rank by an article's opening.
 */
export const headChars = 1024;
/**
 * Matches ranked at most: past this many, the newest this many are ranked and the rest follow newest first
 * (ranking costs a detoast of each match's head; 35,000 of them took 0.7 s at 100k items).
 */
export const maxRanked = 1000;

/** A weighted tsvector of the fields, each through `simple` and `english`. */
function vectorOf(fields: { weight: Weight; text: string }[]): RawBuilder<unknown> {
  const parts = fields
    .filter((f) => f.text.trim() !== "")
    .map((f) => {
      const text = indexText(f.text);
      const w = sql.lit(f.weight);
      return sql`setweight(to_tsvector('simple', ${text}), ${w}) || setweight(to_tsvector('english', ${text}), ${w})`;
    });
  return parts.length === 0 ? sql`''::tsvector` : sql.join(parts, sql` || `);
}

export class PostgresSearchEngine implements SearchEngine {
  private readonly table: RawBuilder<unknown>;
  private readonly fuzzy: [string, string][];
  private readonly fuzzyBelow: number;
  private readonly maxRanked: number;

  constructor(
    private readonly db: Kysely<any>,
    private readonly opts: PostgresEngineOptions,
  ) {
    this.table = sql.table(opts.table);
    this.fuzzy = Object.entries(opts.fuzzyColumns);
    this.fuzzyBelow = opts.fuzzyBelow ?? 5;
    this.maxRanked = opts.maxRanked ?? maxRanked;
  }

  async index(docs: SearchDoc[]): Promise<void> {
    const now = Date.now();
    for (let i = 0; i < docs.length; i += docsPerStatement) {
      const rows = docs.slice(i, i + docsPerStatement).map((d) => {
        // Whole fields to match on; the ranking vector cuts the long (weight D) ones to their start.
        const doc = vectorOf(d.fields);
        const head = vectorOf(d.fields.map((f) => (f.weight === "D" ? { ...f, text: f.text.slice(0, headChars) } : f)));
        const fuzzy = this.fuzzy.map(([name]) => indexText(d.fuzzy.find((f) => f.name === name)?.text ?? ""));
        return sql`(${d.id}, ${d.accountId}, ${doc}, ${head}, ${sql.join(fuzzy)}, ${now})`;
      });
      const cols = sql.join(this.fuzzy.map(([, c]) => sql.ref(c)));
      const updates = sql.join(this.fuzzy.map(([, c]) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
      await sql`insert into ${this.table} (id, account_id, doc, head, ${cols}, updated_at) values ${sql.join(rows)}
        on conflict (id) do update set account_id = excluded.account_id, doc = excluded.doc, head = excluded.head, ${updates}, updated_at = excluded.updated_at`.execute(this.db);
    }
  }

  async isEmpty(): Promise<boolean> {
    return (await sql`select 1 from ${this.table} limit 1`.execute(this.db)).rows.length === 0;
  }

  async remove(accountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await sql`delete from ${this.table} where account_id = ${accountId} and id = any(${ids}::text[])`.execute(this.db);
  }

  matching(accountId: string, q: string) {
    return documentsMatching(this.opts.table, accountId, q);
  }

  /**
   * Matching reads only the tsvector GIN index (a bitmap: `@@` needs no recheck, so the large `doc` is never
   * detoasted, except for phrase candidates); the planner, which expects a common word to match a third of the
   * rows, would scan and detoast every document instead, so sequential scans are off for these statements.
   * Ranking reads the small inline `head` vector only.
   */
  async query(query: SearchQuery): Promise<SearchResult> {
    // The restriction's ids first, planned as usual (sequential scans off made its item filters walk indexes). They
    // travel as one comma-separated text (ids hold no commas): a text[] of 15,000 ids took longer to parse and send
    // again than the statements took to run.
    const ids = query.restrict
      ? ((await this.db.selectNoFrom((eb) => sql<string | null>`(${eb.selectFrom(query.restrict!.as("r")).select(sql<string>`string_agg(r.id, ',')`.as("ids"))})`.as("ids")).executeTakeFirstOrThrow()).ids ?? "")
      : null;
    return withIndexPlans(this.db, (trx) => this.ranked(trx, query, ids));
  }

  private async ranked(db: Kysely<any>, query: SearchQuery, restrictIds: string | null): Promise<SearchResult> {
    const p = prepareQuery(query.q);
    const tsq = tsquery(p);
    const { limit, offset } = query;
    const maxRanked = this.maxRanked;
    const base = () => {
      let qb = db.selectFrom(sql`${this.table}`.as("sd")).where("sd.account_id", "=", query.accountId);
      if (query.statuses && this.opts.statusColumn) qb = qb.where(sql.ref(`sd.${this.opts.statusColumn}`), "in", query.statuses);
      // Folded to one constant array (custom plans, see withIndexPlans), hashed when tested per row.
      if (restrictIds !== null) qb = qb.where(sql<boolean>`sd.id = any(string_to_array(${restrictIds}::text, ','))`);
      return qb;
    };
    const fts = sql<boolean>`sd.doc @@ ${tsq}`;
    // Newest first by id in byte order (ids are time-ordered): "C" keeps the sort cheap and the primary key out of it.
    const newestFirst = sql`sd.id collate "C" desc`;
    const columns = (score: RawBuilder<number>, fullText: RawBuilder<boolean>) => [
      "sd.id",
      "sd.doc",
      "sd.head",
      fullText.as("full_text"),
      score.as("score"),
      ...this.fuzzy.map(([, c]) => sql.ref(`sd.${c}`).as(c)),
    ] as const;
    const rankOf = sql<number>`ts_rank_cd(sd.head, ${tsq}, 32)`;
    // The strongest weight class whose fields alone match, on the page's rows: A-C are whole in `head`; D is tried
    // on the head's content start first, the whole `doc` read only when the match lies deeper.
    const which = sql.join(
      [
        sql`when not p.full_text then null`,
        ...weights.map((w) => sql`when ts_filter(p.head, ${sql.lit(`{${w.toLowerCase()}}`)}::"char"[]) @@ ${tsq} then ${w}`),
        sql`when ts_filter(p.doc, '{d}'::"char"[]) @@ ${tsq} then 'D'`,
      ],
      sql` `,
    );
    const described = async (page: { compile(): unknown } | null, fuzzyWhich: RawBuilder<unknown> = sql`0 as none`) =>
      page === null
        ? []
        : (await sql<Record<string, unknown>>`select p.id, p.score, p.full_text, case ${which} end as weight, ${fuzzyWhich}
      from (${page as never}) p order by p.full_text desc, p.score desc, p.id desc`.execute(db)).rows;

    // One bitmap scan of the matches gives their count and the newest maxRanked of them; only those are ranked
    // (a detoast of each one's small head), the older ones follow newest first.
    let count: number | null = null;
    let rows: Record<string, unknown>[] = [];
    let matchIds: string[] | null = null;
    if (offset < maxRanked) {
      // One row back (the ids comma-joined): a thousand rows cost the client more to read than the scan.
      const newest = base().where(fts).select(["sd.id", sql<number>`count(*) over ()`.as("n")]).orderBy(newestFirst).limit(maxRanked);
      const found = (await db
        .selectFrom(newest.as("m"))
        .select([sql<string | null>`max(m.n)`.as("n"), sql<string | null>`string_agg(m.id, ',')`.as("ids")])
        .executeTakeFirstOrThrow()) as { n: string | number | null; ids: string | null };
      count = Number(found.n ?? 0);
      const ids = found.ids ?? "";
      if (count < maxRanked) matchIds = ids === "" ? [] : ids.split(",");
      if (offset < Math.min(count, maxRanked)) {
        const page = db
          .selectFrom(sql`${this.table}`.as("sd"))
          .where(sql<boolean>`sd.id = any(string_to_array(${ids}::text, ','))`)
          .select(columns(rankOf, sql<boolean>`true`))
          .orderBy("score", "desc")
          .orderBy("sd.id", "desc")
          .limit(Math.min(limit, maxRanked - offset))
          .offset(offset);
        rows = await described(page);
      }
    } else {
      count = Number((await base().where(fts).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
    }
    if (count < this.fuzzyBelow && p.fuzzy.length >= 3 && this.fuzzy.length > 0) {
      matchIds ??= ((await base().where(fts).select("sd.id").execute()) as { id: string }[]).map((r) => r.id);
      return this.withTypos(db, p, tsq, base, matchIds, columns, described, query);
    }
    if (count > maxRanked && offset + limit > maxRanked) {
      const from = Math.max(offset, maxRanked);
      const older = base().where(fts).select(columns(sql<number>`0`, sql<boolean>`true`)).orderBy(newestFirst).limit(offset + limit - from).offset(from);
      rows = [...rows, ...(await described(older))];
    }
    return { hits: rows.map((r) => this.hitOf(r)), count };
  }

  /**
   * Few full-text matches: trigram matches on the short fields are added after them (`q <% field`: some extent of
   * the field is trigram-similar to the query, pg_trgm's word_similarity_threshold, 0.6). Few rows by nature (the
   * full-text matches are under fuzzyBelow), so they are counted and ranked whole. The full-text matches are
   * passed by id: testing `@@` again on each trigram candidate would detoast its document.
   */
  private async withTypos(
    db: Kysely<any>,
    p: PreparedQuery,
    tsq: RawBuilder<unknown>,
    base: () => SelectQueryBuilder<any, any, any>,
    matchIds: string[],
    columns: (score: RawBuilder<number>, fullText: RawBuilder<boolean>) => readonly unknown[],
    described: (page: { compile(): unknown } | null, fuzzyWhich?: RawBuilder<unknown>) => Promise<Record<string, unknown>[]>,
    query: SearchQuery,
  ): Promise<SearchResult> {
    const near = sql.join(this.fuzzy.map(([, c]) => sql`${p.fuzzy} <% sd.${sql.ref(c)}`), sql` or `);
    const similarity = sql`greatest(${sql.join(this.fuzzy.map(([, c]) => sql`word_similarity(${p.fuzzy}, sd.${sql.ref(c)})`))})`;
    const fts = sql<boolean>`sd.id = any(${matchIds}::text[])`;
    const match = sql<boolean>`(${fts} or ${near})`;
    const count = Number((await base().where(match).select((eb: ExpressionBuilder<any, any>) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
    if (count === 0 || query.offset >= count) return { hits: [], count };
    const rank = sql<number>`case when ${fts} then ts_rank_cd(sd.head, ${tsq}, 32) else ${similarity} * 0.01 end`;
    const page = base()
      .where(match)
      .select(columns(rank, fts) as never)
      .orderBy("full_text", "desc")
      .orderBy("score", "desc")
      .orderBy("sd.id", "desc")
      .limit(query.limit)
      .offset(query.offset);
    const fuzzyWhich = sql.join(this.fuzzy.map(([name, c]) => sql`word_similarity(${p.fuzzy}, p.${sql.ref(c)}) as ${sql.ref(`sim_${name}`)}`));
    return { hits: (await described(page, fuzzyWhich)).map((r) => this.hitOf(r)), count };
  }

  private hitOf(r: Record<string, unknown>): SearchHit {
    let matched: SearchHit["matched"] = null;
    if (r.full_text) matched = r.weight ? { weight: r.weight as Weight } : null;
    else {
      const best = this.fuzzy.map(([name]) => [name, Number(r[`sim_${name}`] ?? 0)] as const).sort((a, b) => b[1] - a[1])[0];
      if (best) matched = { fuzzy: best[0] };
    }
    return { id: r.id as string, score: Number(r.score), matched };
  }
}

/** Memory a search statement may sort and count in before spilling to disk (per sort or window, not per connection). */
const searchWorkMem = "32MB";

/**
 * Runs fn in a transaction whose statements take indexes over sequential scans: a search index's `@@` is answered
 * by its GIN index alone, where a sequential scan would detoast every document (the planner does not count that
 * cost, and expects a common word to match a third of the rows). For the engine's statements and for a list
 * narrowed by `q` (documentsMatching).
 */
export async function withIndexPlans<T>(db: Kysely<any>, fn: (trx: Kysely<any>) => Promise<T>): Promise<T> {
  const run = async (trx: Kysely<any>) => {
    // `set local` all in one round trip. Plain index scans are off too: walking the primary key newest first and
    // testing `@@` per row detoasts every document it passes (the planner's pick for "newest N matches"); bitmap
    // scans remain. Costs with sequential scans off pass the JIT threshold, and parallel workers take longer to
    // start on a small machine than these scans take: both off. Custom plans always: the pool prepares statements
    // (libs/db/prepared.ts), and a generic plan builds the tsquery from its parameters again for every row.
    // work_mem: the count over every match (a window over up to the whole library) spilled to disk past the
    // default 4 MB: 100,000 matches took 72 ms instead of 53.
    await sql`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('jit', 'off', true),
      set_config('max_parallel_workers_per_gather', '0', true), set_config('plan_cache_mode', 'force_custom_plan', true),
      set_config('work_mem', ${searchWorkMem}, true)`.execute(trx);
    return fn(trx);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** Ids of the account's documents in `table` matching `q` (full text, no ranking): a subquery for a list's `q`. */
export function documentsMatching(table: string, accountId: string, q: string) {
  const tsq = tsquery(prepareQuery(q));
  return (eb: ExpressionBuilder<any, any>) =>
    eb.selectFrom(sql`${sql.table(table)}`.as("sd")).select("sd.id").where("sd.account_id", "=", accountId).where(sql<boolean>`sd.doc @@ ${tsq}`);
}

/**
 * The query as a tsquery: websearch syntax through both configurations, or, when the last word is matched as a
 * prefix, the same with that word as a prefix (websearch_to_tsquery has no prefix syntax; the word is letters and
 * digits only, so to_tsquery cannot fail on it). Without OR the prefix reading holds every match of the exact one,
 * so it replaces it rather than being ORed to it: each repeated word is one more index scan. websearch_to_tsquery
 * never fails on any input.
 */
function tsquery(p: PreparedQuery): RawBuilder<unknown> {
  const whole = bothReadings(sql`websearch_to_tsquery('simple', ${p.text})`, sql`websearch_to_tsquery('english', ${p.text})`);
  if (!p.prefix) return whole;
  const word = `${p.prefix}:*`;
  const prefixed = bothReadings(
    sql`(websearch_to_tsquery('simple', ${p.rest}) && to_tsquery('simple', ${word}))`,
    sql`(websearch_to_tsquery('english', ${p.rest}) && to_tsquery('english', ${word}))`,
  );
  // With an OR in the rest, "a OR b c" reads a | (b & c), which (a | b) & c:* does not hold: both are needed.
  return p.rest.split(" ").some((t) => t.toLowerCase() === "or") ? sql`(${whole} || ${prefixed})` : prefixed;
}

/**
 * The exact reading OR the English one (stems: "running" finds "run"), the English one only when it kept every
 * word and differs: it drops stop words ("before review" would read as "review" alone, which ORed with the exact
 * reading would widen the query instead of stemming it), and an identical reading would only repeat the scan.
 */
const bothReadings = (simple: RawBuilder<unknown>, english: RawBuilder<unknown>) =>
  sql`(case when numnode(${english}) = numnode(${simple}) and ${english} <> ${simple} then ${simple} || ${english} else ${simple} end)`;
