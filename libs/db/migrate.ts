// Each service owns one PostgreSQL schema and runs its own migrations (ISO-dated files) at start. A library that
// keeps tables in the schemas of the services using it (the work queue) has bound migrations: each file's `up`
// takes the schema as a second argument, and they are recorded in a migration table of their own, so they never
// mix with the service's.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";

export interface MigrateOptions {
  /** The table recording which migrations ran (default Kysely's `kysely_migration`); its lock table is `<table>_lock`. */
  table?: string;
  /** The files' `up(db, schema)` is given the schema: one library's migrations, run into each schema that uses it. */
  bound?: boolean;
}

class DirectoryProvider implements MigrationProvider {
  constructor(
    private readonly dir: string,
    private readonly boundTo: string | undefined,
  ) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const file of await migrationFiles(this.dir)) {
      const mod = (await import(join(this.dir, file))) as { up(db: Kysely<any>, schema?: string): Promise<void> };
      const schema = this.boundTo;
      out[file.replace(/\.ts$/, "")] = schema === undefined ? mod : { up: (db) => mod.up(db, schema) };
    }
    return out;
  }
}

/** The migration files of `dir`, in the order they run. */
export async function migrationFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => /\.ts$/.test(f) && !f.endsWith(".test.ts")).sort();
}

/** Brings `schema` to the latest migration in `dir`; throws with the failing migration's name. */
export async function migrateSchema(db: Kysely<any>, schema: string, dir: string, opts: MigrateOptions = {}): Promise<void> {
  // Most starts have nothing to run: one read of the recorded names says so, where the migrator would import every
  // file and take its lock (a second of a small machine's start over all schemas).
  if (await upToDate(db, schema, opts.table ?? "kysely_migration", dir)) return;
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db).catch((err) => {
    if ((err as { code?: string }).code !== "23505") throw err;
  });
  const migrator = new Migrator({
    db,
    provider: new DirectoryProvider(dir, opts.bound ? schema : undefined),
    migrationTableSchema: schema,
    ...(opts.table ? { migrationTableName: opts.table, migrationLockTableName: `${opts.table}_lock` } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${schema}/${failed} failed: ${(error as Error).message}`);
  }
}

/** Whether the recorded migrations are exactly the files of `dir` (anything else goes to the migrator). */
async function upToDate(db: Kysely<any>, schema: string, table: string, dir: string): Promise<boolean> {
  const files = (await migrationFiles(dir)).map((f) => f.replace(/\.ts$/, ""));
  let recorded: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(`${schema}.${table}`)}`.execute(db);
    recorded = rows.map((r) => r.name);
  } catch {
    // No table yet (a new database, a new schema): the migrator makes it.
    return false;
  }
  const names = new Set(recorded);
  return recorded.length === files.length && files.every((f) => names.has(f));
}
