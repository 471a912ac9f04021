// The embedded deployment's first start without initdb: a PGlite data directory made once at install time
// (`bun run db:template`, run by `bun install`) with the extensions and every migration in it, copied into a new
// data directory by openDatabase. initdb inside PGlite costs seconds and most of a gigabyte; a copy costs
// milliseconds. The template records the migrations it holds: one that holds a migration the code no longer has
// (a downgrade, a renamed file) is not used, and one that lacks newer migrations is used and migrated forward.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, pgliteLayout, type Database } from "./open.ts";

/** Where this checkout's template lives (ignored by git; one per PGlite layout). */
export const pgliteTemplateDir = join(import.meta.dir, ".pglite-template", pgliteLayout);

const manifest = "trove-template.json";

/** The template when it exists and holds only migrations among `known`; undefined otherwise. */
export function usableTemplate(known: Iterable<string>, dir = pgliteTemplateDir): string | undefined {
  try {
    const { migrations } = JSON.parse(readFileSync(join(dir, manifest), "utf8")) as { migrations: string[] };
    const names = new Set(known);
    return existsSync(join(dir, "pg", "PG_VERSION")) && migrations.every((m) => names.has(m)) ? join(dir, "pg") : undefined;
  } catch {
    return undefined;
  }
}

/** Makes the template: a fresh PGlite directory, `migrate` run on it, closed cleanly, then moved into place. */
export async function writePgliteTemplate(migrate: (database: Database) => Promise<void>, migrations: string[], dir = pgliteTemplateDir): Promise<void> {
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    const database = await openDatabase({ dataDir: building });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    rmSync(join(building, "trove.lock"), { force: true });
    writeFileSync(join(building, manifest), JSON.stringify({ layout: pgliteLayout, migrations: [...migrations].sort() }, null, 2));
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    throw err;
  }
}
