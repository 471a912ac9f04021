// Real: PGlite in memory, and PostgreSQL at DATABASE_URL when set (a fresh database per run). Each hook reads the
// table through the root handle, outside the transaction, so what it sees is what other readers see.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { openDatabase, inTransaction, type Database, type UnitOfWork } from "../index.ts";
import { createScratchDatabase } from "@trove/testing/postgres.ts";

function recordingLog() {
  const lines: { obj: { err?: unknown }; msg: string }[] = [];
  return { lines, error: (obj: object, msg?: string) => void lines.push({ obj, msg: msg ?? "" }) };
}

async function names(db: Kysely<any>): Promise<string[]> {
  const rows = await db.selectFrom("uow.things").select("name").orderBy("name").execute();
  return rows.map((r) => r.name as string);
}

function unitOfWorkSuite(label: string, open: () => Promise<Database>) {
  describe(`unit of work on ${label}`, () => {
    let database: Database;
    let db: Kysely<any>;

    beforeAll(async () => {
      database = await open();
      db = database.db;
      await sql`create schema uow`.execute(db);
      await sql`create table uow.things (name text primary key)`.execute(db);
      // Checked at commit, so a transaction can fail after its last statement succeeded.
      await sql`create table uow.unique_at_commit (k text, constraint one_k unique (k) deferrable initially deferred)`.execute(db);
    });
    afterAll(async () => database?.close());

    test("hooks run after the commit, in the order added, and see the committed change", async () => {
      const order: number[] = [];
      const reads: Promise<string[]>[] = [];
      let ranBeforeEnd = -1;
      const result = await inTransaction(db, async (uow) => {
        await uow.db.insertInto("uow.things").values({ name: "after-commit" }).execute();
        for (const n of [1, 2, 3]) {
          uow.afterCommit(() => {
            order.push(n);
            reads.push(names(db));
          });
        }
        ranBeforeEnd = order.length;
        return "done";
      });
      expect(result).toBe("done");
      expect(ranBeforeEnd).toBe(0);
      expect(order).toEqual([1, 2, 3]);
      for (const seen of await Promise.all(reads)) expect(seen).toContain("after-commit");
    });

    test("a rollback runs no hook and keeps nothing", async () => {
      let ran = 0;
      const err = await inTransaction(db, async (uow) => {
        await uow.db.insertInto("uow.things").values({ name: "rolled-back" }).execute();
        uow.afterCommit(() => ran++);
        throw new Error("changed my mind");
      }).catch((e: unknown) => e);
      expect((err as Error).message).toBe("changed my mind");
      expect(ran).toBe(0);
      expect(await names(db)).not.toContain("rolled-back");
    });

    test("before-commit hooks run in the transaction once its work is done, in order; one that throws undoes it all", async () => {
      const order: string[] = [];
      await inTransaction(db, async (uow) => {
        uow.beforeCommit(async () => {
          order.push("first");
          await uow.db.insertInto("uow.things").values({ name: "gathered" }).execute();
          uow.beforeCommit(async () => void order.push("added by a hook"));
        });
        uow.beforeCommit(async () => void order.push("second"));
        uow.afterCommit(() => void order.push("after the commit"));
        await uow.db.insertInto("uow.things").values({ name: "own work" }).execute();
        order.push("work done");
      });
      expect(order).toEqual(["work done", "first", "second", "added by a hook", "after the commit"]);
      expect(await names(db)).toEqual(expect.arrayContaining(["gathered", "own work"]));

      let ran = 0;
      const err = await inTransaction(db, async (uow) => {
        await uow.db.insertInto("uow.things").values({ name: "undone" }).execute();
        uow.beforeCommit(async () => {
          throw new Error("refused at the end");
        });
        uow.afterCommit(() => ran++);
      }).catch((e: unknown) => e);
      expect((err as Error).message).toBe("refused at the end");
      expect(ran).toBe(0);
      expect(await names(db)).not.toContain("undone");
    });

    test("a commit that fails runs no hook", async () => {
      let ran = 0;
      const err = await inTransaction(db, async (uow) => {
        await uow.db.insertInto("uow.unique_at_commit").values([{ k: "same" }, { k: "same" }]).execute();
        uow.afterCommit(() => ran++);
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(ran).toBe(0);
      const { rows } = await sql<{ c: number }>`select count(*)::int as c from uow.unique_at_commit`.execute(db);
      expect(rows[0]!.c).toBe(0);
    });

    test("a unit of work begun inside another joins it: one commit, its hooks after the outer commit", async () => {
      const order: string[] = [];
      let inner: UnitOfWork | undefined;
      await inTransaction(db, async (outer) => {
        await outer.db.insertInto("uow.things").values({ name: "outer" }).execute();
        await inTransaction(outer, async (uow) => {
          inner = uow;
          await uow.db.insertInto("uow.things").values({ name: "inner" }).execute();
          uow.afterCommit(() => order.push("inner hook"));
        });
        order.push("inner returned");
        outer.afterCommit(() => order.push("outer hook"));
        expect(inner).toBe(outer);
      });
      expect(order).toEqual(["inner returned", "inner hook", "outer hook"]);
      expect(await names(db)).toEqual(expect.arrayContaining(["inner", "outer"]));
    });

    test("an outer rollback undoes the joined work and drops its hooks", async () => {
      let ran = 0;
      await inTransaction(db, async (outer) => {
        await inTransaction(outer, async (uow) => {
          await uow.db.insertInto("uow.things").values({ name: "joined-then-rolled-back" }).execute();
          uow.afterCommit(() => ran++);
        });
        throw new Error("outer fails after the inner finished");
      }).catch(() => {});
      expect(ran).toBe(0);
      expect(await names(db)).not.toContain("joined-then-rolled-back");
    });

    test("a throwing hook is logged, the commit stands and the later hooks still run", async () => {
      const log = recordingLog();
      let later = 0;
      const result = await inTransaction(
        db,
        async (uow) => {
          await uow.db.insertInto("uow.things").values({ name: "hook-throws" }).execute();
          uow.afterCommit(() => {
            throw new Error("poke failed");
          });
          uow.afterCommit(() => later++);
          return 42;
        },
        { log },
      );
      expect(result).toBe(42);
      expect(later).toBe(1);
      expect(await names(db)).toContain("hook-throws");
      expect(log.lines).toHaveLength(1);
      expect((log.lines[0]!.obj.err as Error).message).toBe("poke failed");
    });

    test("a bare transaction is refused: hooks added to it could not wait for its commit", async () => {
      const err = await db
        .transaction()
        .execute((trx) => inTransaction(trx, async () => "never"))
        .catch((e: unknown) => e);
      expect((err as Error).message).toContain("pass its unit of work");
    });

    test("a hook added after the end is refused rather than run for a change already announced", async () => {
      let kept: UnitOfWork | undefined;
      await inTransaction(db, async (uow) => {
        kept = uow;
      });
      expect(() => kept!.afterCommit(() => {})).toThrow("already committed");
      await inTransaction(db, async (uow) => {
        kept = uow;
        throw new Error("rolled back");
      }).catch(() => {});
      expect(() => kept!.afterCommit(() => {})).toThrow("already rolled back");
    });
  });
}

unitOfWorkSuite("pglite", () => openDatabase({}));

if (process.env.DATABASE_URL) {
  unitOfWorkSuite("postgres", async () => openDatabase({ databaseUrl: await createScratchDatabase("uow") }));
} else {
  console.log("SKIPPED postgres unit of work suite: DATABASE_URL is not set");
  describe.skip("unit of work on postgres (skipped: DATABASE_URL is not set)", () => test("the unit of work suite", () => {}));
}
