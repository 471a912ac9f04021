import { afterAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "./index.ts";
import { compileOnce } from "./compiled.ts";

const database = await openDatabase({});
afterAll(() => database.close());

test("a query compiled once runs with new values each time", async () => {
  await sql`create table t (id text primary key, owner text, n int4)`.execute(database.db);
  await database.db.insertInto("t").values([{ id: "a", owner: "x", n: 1 }, { id: "b", owner: "y", n: 2 }]).execute();
  const byOwner = compileOnce(["owner", "min"], (p) =>
    database.db.selectFrom("t").selectAll().where("owner", "=", p.owner).where("n", ">=", p.min).where("id", "!=", "zzz"),
  );
  expect(await byOwner(database.db, { owner: "x", min: 0 })).toEqual([{ id: "a", owner: "x", n: 1 }]);
  expect(await byOwner(database.db, { owner: "y", min: 0 })).toEqual([{ id: "b", owner: "y", n: 2 }]);
  expect(await byOwner(database.db, { owner: "y", min: 5 })).toEqual([]);
});
