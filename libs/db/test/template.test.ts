// The first start without initdb: a template made once (a real PGlite directory, migrated), copied into a new data
// directory; and the migration check that lets a start with nothing to migrate skip the migrator.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { migrateSchema, migrationFiles, openDatabase, usableTemplate, writePgliteTemplate } from "../index.ts";

const root = mkdtempSync(join(tmpdir(), "trove-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const migrationsDir = join(import.meta.dir, "migrations");
const templateDir = join(root, "template");

describe("the data directory template", () => {
  test("a new data directory starts as a copy of the migrated template, and keeps what is written to it", async () => {
    const names = (await migrationFiles(migrationsDir)).map((f) => `demo/${f}`);
    await writePgliteTemplate((database) => migrateSchema(database.db, "demo", migrationsDir), names, templateDir);
    const template = usableTemplate(names, templateDir);
    expect(template).toBe(join(templateDir, "pg"));

    const dataDir = join(root, "data");
    const database = await openDatabase({ dataDir, templateDir: template });
    try {
      // The template's table is there without a migration having run in this directory.
      await database.db.withSchema("demo").insertInto("things").values({ id: "a", n: 1, label: "from the copy" }).execute();
    } finally {
      await database.close();
    }
    const again = await openDatabase({ dataDir, templateDir: template });
    try {
      const rows = await again.db.withSchema("demo").selectFrom("things").select("label").execute();
      expect(rows).toEqual([{ label: "from the copy" }]);
    } finally {
      await again.close();
    }
    // The template itself is untouched: the next new directory gets an empty table.
    const other = await openDatabase({ dataDir: join(root, "other"), templateDir: template });
    try {
      expect(await other.db.withSchema("demo").selectFrom("things").selectAll().execute()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  test("a template holding a migration the code does not have is not used; one missing a newer migration is", () => {
    expect(usableTemplate(["demo/2026-01-01-create.ts", "demo/2026-02-01-newer.ts"], templateDir)).toBe(join(templateDir, "pg"));
    expect(usableTemplate(["demo/2026-02-01-renamed.ts"], templateDir)).toBeUndefined();
    expect(usableTemplate(["demo/2026-01-01-create.ts"], join(root, "no-such-template"))).toBeUndefined();
  });

  test("a start after a new migration file appeared runs it (the up-to-date check compares names, not counts alone)", async () => {
    const dir = join(root, "migrations-grown");
    mkdirSync(dir);
    // Files without imports: this folder is outside the package, where "kysely" does not resolve.
    writeFileSync(join(dir, "2026-01-01-create.ts"), `export async function up(db) {\n  await db.schema.withSchema("grown").createTable("things").addColumn("id", "text").execute();\n}\n`);
    const database = await openDatabase({});
    try {
      await migrateSchema(database.db, "grown", dir);
      writeFileSync(join(dir, "2026-02-01-extra.ts"), `export async function up(db) {\n  await db.schema.withSchema("grown").alterTable("things").addColumn("extra", "text").execute();\n}\n`);
      await migrateSchema(database.db, "grown", dir);
      const { rows } = await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = 'grown' and table_name = 'things' and column_name = 'extra'`.execute(database.db);
      expect(rows).toEqual([{ name: "extra" }]);
    } finally {
      await database.close();
    }
  });

  test("without a template a new data directory is made by initdb, as before", async () => {
    const dataDir = join(root, "plain");
    const database = await openDatabase({ dataDir, templateDir: join(root, "no-such-template", "pg") });
    try {
      expect(await database.healthy()).toBe(true);
      expect(existsSync(join(dataDir, "pg", "PG_VERSION"))).toBe(true);
    } finally {
      await database.close();
    }
  });
});
