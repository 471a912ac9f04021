// A PGlite data directory made once (initdb costs seconds) and loaded from its dump by every test (~0.3 s).
import { existsSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, pgliteLayout, type Database } from "@trove/db";

let template: Promise<Blob> | undefined;

async function makeTemplate(): Promise<Blob> {
  const file = join(tmpdir(), `trove-pglite-template-${pgliteLayout}.tar.gz`);
  if (existsSync(file)) return new Blob([await Bun.file(file).arrayBuffer()]);
  const database = await openDatabase({});
  const dump = await dumpOf(database);
  await database.close();
  const tmp = `${file}.${process.pid}`;
  await Bun.write(tmp, dump);
  renameSync(tmp, file);
  return dump;
}

async function dumpOf(database: Database): Promise<Blob> {
  if (!database.dump) throw new Error("not a PGlite database");
  return database.dump();
}

/** A fresh, empty in-memory PGlite database with the extensions loaded. */
export async function freshPglite(): Promise<Database> {
  template ??= makeTemplate();
  return openDatabase({ loadDataDir: await template });
}

/**
 * Fills an empty Trove data directory with a fresh database from the template and closes it, so that a Trove
 * started on `dataDir` (in this process or another) opens it as the embedded deployment does, without initdb.
 */
export async function pgliteDirFromTemplate(dataDir: string): Promise<void> {
  template ??= makeTemplate();
  const database = await openDatabase({ dataDir, loadDataDir: await template });
  await database.close();
}
