// The PostgreSQL search engine (PGlite embedded, PostgreSQL distributed: the same SQL, pg_trgm on both).
// One row per document: a weighted tsvector holding every field twice, through the `simple` configuration (exact
// words, any language) and `english` (stems: "running" finds "run"), plus folded copies of the short fields for
// trigram typo tolerance. Queries OR the two configurations, so either reading of a word matches.
import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from "kysely";
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

  constructor(
    private readonly db: Kysely<any>,
    private readonly opts: PostgresEngineOptions,
  ) {
    this.table = sql.table(opts.table);
    this.fuzzy = Object.entries(opts.fuzzyColumns);
    this.fuzzyBelow = opts.fuzzyBelow ?? 5;
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
    // The restriction's ids first, planned as usual (sequential scans off made its item filters walk indexes).
    const ids = query.restrict
      ? ((await this.db.selectNoFrom((eb) => sql<string[]>`array(${eb.selectFrom(query.restrict!.as("r")).select("r.id")})`.as("ids")).executeTakeFirstOrThrow()).ids as string[])
      : null;
    return withIndexPlans(this.db, (trx) => this.ranked(trx, query, ids));
  }

  private async ranked(db: Kysely<any>, query: SearchQuery, restrictIds: string[] | null): Promise<SearchResult> {
    const p = prepareQuery(query.q);
    const tsq = tsquery(p);
    const base = () => {
      let qb = db.selectFrom(sql`${this.table}`.as("sd")).where("sd.account_id", "=", query.accountId);
      if (query.statuses && this.opts.statusColumn) qb = qb.where(sql.ref(`sd.${this.opts.statusColumn}`), "in", query.statuses);
      if (restrictIds) qb = qb.where(sql<boolean>`sd.id = any(${restrictIds}::text[])`);
      return qb;
    };
    const fts = sql<boolean>`sd.doc @@ ${tsq}`;
    const ftsCount = (await base().where(fts).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n;
    const fuzzy = ftsCount < this.fuzzyBelow && p.fuzzy.length >= 3 && this.fuzzy.length > 0;
    // `q <% field`: some extent of the field is trigram-similar to the query (pg_trgm's word_similarity_threshold, 0.6).
    const near = fuzzy ? sql.join(this.fuzzy.map(([, c]) => sql`${p.fuzzy} <% sd.${sql.ref(c)}`), sql` or `) : sql`false`;
    const similarity = fuzzy ? sql`greatest(${sql.join(this.fuzzy.map(([, c]) => sql`word_similarity(${p.fuzzy}, sd.${sql.ref(c)})`))})` : sql`0`;
    const match = fuzzy ? sql<boolean>`(${fts} or ${near})` : fts;
    const count = fuzzy ? (await base().where(match).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n : ftsCount;
    if (count === 0 || query.offset >= count) return { hits: [], count };
    // Without trigram matches every row matched the full text: testing `@@` again per row would detoast `doc`.
    const fullText = fuzzy ? fts : sql<boolean>`true`;
    const columns = (score: RawBuilder<number>) => [
      "sd.id",
      "sd.doc",
      "sd.head",
      sql<boolean>`${fullText}`.as("full_text"),
      score.as("score"),
      ...this.fuzzy.map(([, c]) => sql.ref(`sd.${c}`).as(c)),
    ] as const;
    const rank = sql<number>`case when ${fullText} then ts_rank_cd(sd.head, ${tsq}, 32) else ${similarity} * 0.01 end`;
    const ranked = (qb: ReturnType<typeof base>, limit: number, offset: number) =>
      qb.select(columns(rank)).orderBy("full_text", "desc").orderBy("score", "desc").orderBy("sd.id", "desc").limit(limit).offset(offset);
    // The strongest weight class whose fields alone match, on the page's rows: A-C are whole in `head`; D is tried
    // on the head's content start first, the whole `doc` read only when the match lies deeper.
    const which = sql.join(
      [
        ...weights.map((w) => sql`when ts_filter(p.head, ${sql.lit(`{${w.toLowerCase()}}`)}::"char"[]) @@ ${tsq} then ${w}`),
        sql`when ts_filter(p.doc, '{d}'::"char"[]) @@ ${tsq} then 'D'`,
      ],
      sql` `,
    );
    const fuzzyWhich = fuzzy ? sql.join(this.fuzzy.map(([name, c]) => sql`word_similarity(${p.fuzzy}, p.${sql.ref(c)}) as ${sql.ref(`sim_${name}`)}`)) : sql`0 as none`;
    const described = async (page: { compile(): unknown } | null) =>
      page === null
        ? []
        : (await sql<Record<string, unknown>>`select p.id, p.score, p.full_text, case ${which} end as weight, ${fuzzyWhich}
      from (${page as never}) p order by p.full_text desc, p.score desc, p.id desc`.execute(db)).rows;
    let rows: Record<string, unknown>[];
    if (fuzzy || count <= maxRanked) rows = await described(ranked(base().where(match), query.limit, query.offset));
    else {
      // Past maxRanked matches only the newest maxRanked are ranked (ranking detoasts each one's head); the older
      // matches follow them, newest first.
      const { limit, offset } = query;
      const newest = base().where(fts).select("sd.id").orderBy("sd.id", "desc").limit(maxRanked);
      const inRanked = offset < maxRanked
        ? ranked(db.selectFrom(sql`${this.table}`.as("sd")).where("sd.id", "in", newest as never) as ReturnType<typeof base>, Math.min(limit, maxRanked - offset), offset)
        : null;
      const from = Math.max(offset, maxRanked);
      const older = offset + limit > maxRanked
        ? base().where(fts).select(columns(sql<number>`0`)).orderBy("sd.id", "desc").limit(offset + limit - from).offset(from)
        : null;
      rows = [...(await described(inRanked)), ...(await described(older))];
    }
    const hits = rows.map((r): SearchHit => {
      let matched: SearchHit["matched"] = null;
      if (r.full_text) matched = r.weight ? { weight: r.weight as Weight } : null;
      else {
        const best = this.fuzzy.map(([name]) => [name, Number(r[`sim_${name}`] ?? 0)] as const).sort((a, b) => b[1] - a[1])[0];
        if (best) matched = { fuzzy: best[0] };
      }
      return { id: r.id as string, score: Number(r.score), matched };
    });
    return { hits, count };
  }
}

/**
 * Runs fn in a transaction whose statements take indexes over sequential scans: a search index's `@@` is answered
 * by its GIN index alone, where a sequential scan would detoast every document (the planner does not count that
 * cost, and expects a common word to match a third of the rows). For the engine's statements and for a list
 * narrowed by `q` (documentsMatching).
 */
export async function withIndexPlans<T>(db: Kysely<any>, fn: (trx: Kysely<any>) => Promise<T>): Promise<T> {
  const run = async (trx: Kysely<any>) => {
    // `set local` both in one round trip. Costs with sequential scans off pass the JIT threshold; compiling
    // would take longer than the query.
    await sql`select set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`.execute(trx);
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
 * The query as a tsquery: websearch syntax through both configurations, OR the same with its last word as a
 * prefix (websearch_to_tsquery has no prefix syntax; the word is letters and digits only, so to_tsquery cannot
 * fail on it). websearch_to_tsquery never fails on any input. The English reading is used only when it kept every
 * word: it drops stop words ("before review" would read as "review" alone), and ORed with the exact reading that
 * would widen the query instead of stemming it.
 */
function tsquery(p: PreparedQuery): RawBuilder<unknown> {
  const simple = sql`websearch_to_tsquery('simple', ${p.text})`;
  const whole = sql`(${simple} || ${englishIfWhole(sql`websearch_to_tsquery('english', ${p.text})`, simple)})`;
  if (!p.prefix) return whole;
  const word = `${p.prefix}:*`;
  const simplePrefix = sql`(websearch_to_tsquery('simple', ${p.rest}) && to_tsquery('simple', ${word}))`;
  const englishPrefix = sql`(websearch_to_tsquery('english', ${p.rest}) && to_tsquery('english', ${word}))`;
  return sql`(${whole} || ${simplePrefix} || ${englishIfWhole(englishPrefix, simplePrefix)})`;
}

/** The English reading when it has as many nodes as the exact one (no stop word dropped), else the exact one. */
const englishIfWhole = (english: RawBuilder<unknown>, simple: RawBuilder<unknown>) =>
  sql`(case when numnode(${english}) = numnode(${simple}) then ${english} else ${simple} end)`;
