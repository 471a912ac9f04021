// Real: PGlite in a temporary directory, and PostgreSQL at DATABASE_URL when set (a fresh database per run).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase, migrateSchema, DataDirLockedError, type Database } from "../index.ts";
import { createScratchDatabase } from "@trove/testing/postgres.ts";

const migrationsDir = join(import.meta.dir, "migrations");

function databaseSuite(name: string, open: () => Promise<Database>) {
  describe(name, () => {
    let database: Database;
    afterAll(async () => database?.close());

    test("migrates a schema once and reads int8 back as a number", async () => {
      database = await open();
      await migrateSchema(database.db, "demo", migrationsDir);
      await migrateSchema(database.db, "demo", migrationsDir); // second run is a no-op
      await database.db.withSchema("demo").insertInto("things").values({ id: "a", n: 1_700_000_000_123, label: "hello world" }).execute();
      const row = await database.db.withSchema("demo").selectFrom("things").selectAll().executeTakeFirstOrThrow();
      expect(row.n).toBe(1_700_000_000_123);
      const { rows } = await sql<{ c: number }>`select count(*) as c from demo.things`.execute(database.db);
      expect(rows[0]!.c).toBe(1);
    });

    test("pg_trgm similarity works", async () => {
      const { rows } = await sql<{ s: number }>`select similarity('hello world', 'hello wrld') as s`.execute(database.db);
      expect(rows[0]!.s).toBeGreaterThan(0.3);
    });

    test("reports health", async () => {
      expect(await database.healthy()).toBe(true);
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), "trove-pglite-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

databaseSuite("pglite", () => openDatabase({ dataDir }));

describe("pglite data directory lock", () => {
  test("a second open of a directory held by a live process is refused with a clear error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-lock-"));
    // Another live process holds the lock: our parent (the test runner's shell) stands in for it.
    writeFileSync(join(dir, "trove.lock"), String(process.ppid));
    const err = await openDatabase({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toContain(`process ${process.ppid}`);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a stale lock from a dead process is taken over, and released on close", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-lock-"));
    mkdirSync(dir, { recursive: true });
    const dead = Bun.spawnSync(["true"]).pid; // exited already
    writeFileSync(join(dir, "trove.lock"), String(dead));
    const database = await openDatabase({ dataDir: dir });
    expect(await Bun.file(join(dir, "trove.lock")).text()).toBe(String(process.pid));
    await database.close();
    expect(await Bun.file(join(dir, "trove.lock")).exists()).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a lock left by an earlier run with this process's pid (a restarted container) is taken over; a second open here is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-lock-"));
    writeFileSync(join(dir, "trove.lock"), String(process.pid));
    const database = await openDatabase({ dataDir: dir });
    const again = await openDatabase({ dataDir: dir }).catch((e: unknown) => e);
    expect((again as Error).message).toContain("already open in this process");
    await database.close();
    expect(await Bun.file(join(dir, "trove.lock")).exists()).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});

if (process.env.DATABASE_URL) {
  databaseSuite("postgres", async () => openDatabase({ databaseUrl: await createScratchDatabase("db") }));
} else {
  console.log("SKIPPED postgres database suite: DATABASE_URL is not set");
  describe.skip("postgres (skipped: DATABASE_URL is not set)", () => test("the database suite", () => {}));
}
