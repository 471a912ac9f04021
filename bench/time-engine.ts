// `DATABASE_URL=<a kept library> bun bench/time-engine.ts <q>...`: p50/p95 of the items search engine alone (25 runs
// each) and the last run's statements with their durations, to see where a query's time goes.
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { PostgresSearchEngine } from "../libs/search/index.ts";
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
let stmts: string[] = [];
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (e) => { stmts.push(`${e.queryDurationMillis.toFixed(1)}:${e.query.sql.slice(0, 40).replace(/\s+/g, " ")}`); } });
const engine = new PostgresSearchEngine(db, { table: "items.search_docs", fuzzyColumns: { title: "title_fold", url: "url_fold" }, statusColumn: "status", maxRanked: Number(process.env.RANKED ?? 1000) });
const [{ account_id: accountId }] = (await sql<{ account_id: string }>`select account_id from items.items limit 1`.execute(db)).rows as [{ account_id: string }];
for (const q of process.argv.slice(2)) {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < 25; i++) {
    stmts = [];
    const t0 = performance.now();
    const r = await engine.query({ accountId, q, statuses: ["stashed", "flagged"], limit: 20, offset: 0 });
    times.push(performance.now() - t0);
    count = r.count;
  }
  console.log(stmts.join(" | "));
  times.sort((a, b) => a - b);
  console.log(q.padEnd(24), count, "p50", times[12]!.toFixed(1), "p95", times[23]!.toFixed(1));
}
await db.destroy();
