// The embedded deployment's own vacuum (PGlite has no autovacuum): tables past autovacuum's thresholds are
// vacuumed and analyzed, others left alone, and a pass runs while a transaction is open without landing inside it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { maintainOnce, openDatabase, type Database } from "../index.ts";

let database: Database;
const stats = async (table: string) => {
  await sql`select pg_stat_force_next_flush()`.execute(database.db);
  return (
    await sql<{ dead: number; analyzed: boolean; vacuumed: boolean }>`select n_dead_tup::int as dead, last_analyze is not null as analyzed,
      last_vacuum is not null as vacuumed from pg_stat_user_tables where schemaname = 'm' and relname = ${table}`.execute(database.db)
  ).rows[0]!;
};

beforeAll(async () => {
  database = await openDatabase({});
  await sql`create schema m`.execute(database.db);
  await sql`create table m.churn (id int primary key, v text)`.execute(database.db);
  await sql`create table m.quiet (id int primary key, v text)`.execute(database.db);
  await sql`insert into m.churn select g, 'a' from generate_series(1, 5000) g`.execute(database.db);
  await sql`insert into m.quiet select g, 'a' from generate_series(1, 20) g`.execute(database.db);
  await maintainOnce(database.db); // the inserts: both analyzed once
  for (let i = 0; i < 3; i++) await sql`update m.churn set v = v || 'b'`.execute(database.db);
});
afterAll(() => database.close());

test("PGlite leaves dead rows where they are: nothing vacuums them on its own", async () => {
  expect(database.kind).toBe("pglite");
  expect((await stats("churn")).dead).toBeGreaterThanOrEqual(10_000);
});

test("a pass vacuums and analyzes the table past the thresholds, and only it", async () => {
  const quietBefore = await stats("quiet");
  const done = await maintainOnce(database.db);
  expect(done).toEqual(["m.churn"]);
  const churn = await stats("churn");
  expect(churn.dead).toBe(0);
  expect(churn.vacuumed).toBe(true);
  expect(churn.analyzed).toBe(true);
  expect(await stats("quiet")).toEqual(quietBefore);
  expect(await maintainOnce(database.db)).toEqual([]);
});

test("a pass started while a transaction is open waits for it instead of failing inside it", async () => {
  for (let i = 0; i < 2; i++) await sql`update m.churn set v = v || 'c'`.execute(database.db);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const trx = database.db.transaction().execute(async (t) => {
    await sql`update m.quiet set v = 'd' where id = 1`.execute(t);
    await held;
  });
  const pass = maintainOnce(database.db);
  release();
  await trx;
  expect(await pass).toContain("m.churn");
  expect((await stats("churn")).dead).toBe(0);
});
