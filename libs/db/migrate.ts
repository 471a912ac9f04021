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
    const files = (await readdir(this.dir)).filter((f) => /\.ts$/.test(f) && !f.endsWith(".test.ts")).sort();
    for (const file of files) {
      const mod = (await import(join(this.dir, file))) as { up(db: Kysely<any>, schema?: string): Promise<void> };
      const schema = this.boundTo;
      out[file.replace(/\.ts$/, "")] = schema === undefined ? mod : { up: (db) => mod.up(db, schema) };
    }
    return out;
  }
}

/** Brings `schema` to the latest migration in `dir`; throws with the failing migration's name. */
export async function migrateSchema(db: Kysely<any>, schema: string, dir: string, opts: MigrateOptions = {}): Promise<void> {
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
