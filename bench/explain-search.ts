// `bun run bench/explain-search.ts <q>...`: EXPLAIN ANALYZE of the statements the items search engine runs for each
// query, captured as it builds them (DATABASE_URL: a benched library, e.g. one kept with BENCH_KEEP).
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { PostgresSearchEngine } from "../libs/search/index.ts";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
const statements: { sql: string; parameters: readonly unknown[] }[] = [];
const db = new Kysely<any>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (e.level === "query") statements.push({ sql: e.query.sql, parameters: e.query.parameters });
  },
});
const engine = new PostgresSearchEngine(db, { table: "items.search_docs", fuzzyColumns: { title: "title_fold", url: "url_fold" }, statusColumn: "status" });
const [{ account_id: accountId }] = (await sql<{ account_id: string }>`select account_id from items.items limit 1`.execute(db)).rows as [{ account_id: string }];
for (const q of process.argv.slice(2)) {
  statements.length = 0;
  const t0 = performance.now();
  const { count, hits } = await engine.query({ accountId, q, statuses: ["stashed", "flagged"], limit: 20, offset: 0 });
  console.log(`### q=${q}: ${count} matches, ${hits.length} hits in ${(performance.now() - t0).toFixed(1)} ms`);
  const selects = statements.filter((s) => /^\s*select/i.test(s.sql) && !s.sql.includes("set_config"));
  for (const s of selects) {
    const client = await pool.connect();
    try {
      await client.query("begin");
      await client.query("select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)");
      const plan = await client.query(`explain (analyze, buffers) ${s.sql}`, s.parameters as unknown[]);
      await client.query("rollback");
      console.log(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"), "\n");
    } finally {
      client.release();
    }
  }
}
await db.destroy();
