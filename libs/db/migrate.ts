// Each service owns one PostgreSQL schema and runs its own migrations (ISO-dated files) at start.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";

class DirectoryProvider implements MigrationProvider {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    const files = (await readdir(this.dir)).filter((f) => /\.ts$/.test(f) && !f.endsWith(".test.ts")).sort();
    for (const file of files) out[file.replace(/\.ts$/, "")] = await import(join(this.dir, file));
    return out;
  }
}

/** Brings `schema` to the latest migration in `dir`; throws with the failing migration's name. */
export async function migrateSchema(db: Kysely<any>, schema: string, dir: string): Promise<void> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db).catch((err) => {
    if ((err as { code?: string }).code !== "23505") throw err;
  });
  const migrator = new Migrator({
    db,
    provider: new DirectoryProvider(dir),
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${schema}/${failed} failed: ${(error as Error).message}`);
  }
}
