// One way to open the database: PostgreSQL through `pg` when a URL is given, else PGlite in the data directory.
// Either way int8 comes back as a JavaScript number and the same extensions are loaded.
import { cpSync, existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Kysely, PGliteDialect, PostgresDialect, sql } from "kysely";
import type pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";
import { lockDataDir } from "./lock.ts";
import { preparingPool } from "./prepared.ts";

export interface Database {
  db: Kysely<any>;
  kind: "postgres" | "pglite";
  healthy(): Promise<boolean>;
  close(): Promise<void>;
  /** PostgreSQL only: the `pg` pool under `db`, for a library that takes one (the gateway's shared rate limits). */
  pool?: pg.Pool;
  /** PGlite only: the data directory as a gzipped tarball (tests start from one). */
  dump?: () => Promise<Blob>;
}

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite directory; undefined with no URL means an in-memory database (tests). */
  dataDir?: string;
  /** A PGlite data directory dump to start from (tests copy a migrated template). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PGlite: shared_buffers in MB (every buffer is resident once touched, and the first ones at start). Default 16. */
  buffersMb?: number;
  /**
   * PGlite: a migrated data directory copied in when `dataDir` holds none yet, so a first start skips initdb
   * (libs/db/template.ts makes it at install time). Ignored when it is missing.
   */
  templateDir?: string;
}

const pgliteExtensions = { pg_trgm, vector };
/** Names what a fresh PGlite directory holds; change it when the PGlite version or the extensions change. */
export const pgliteLayout = "0.5.14-pg_trgm-vector";

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.dataDir, opts.loadDataDir, opts.buffersMb ?? 16, opts.templateDir);
}

async function openPostgres(url: string, max: number): Promise<Database> {
  // Imported here: the embedded process never loads the PostgreSQL client.
  const { default: pgClient } = await import("pg");
  // Counts and millisecond timestamps fit a double exactly; strings for them would leak into every caller.
  pgClient.types.setTypeParser(20, Number);
  const pool = new pgClient.Pool({ connectionString: url, max });
  // An idle client's network error must not crash the process; the pool replaces the client.
  pool.on("error", () => {});
  // Nor may a checked-out client's: a connection cut between two statements (pg_terminate_backend, a failover) is
  // reported as an 'error' event on the client, which the pool listens to only while the client is idle. The next
  // statement on it fails, and the pool discards it on release.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: preparingPool(pool) as never }) });
  await ensureExtension(db, "pg_trgm");
  return {
    db,
    kind: "postgres",
    pool,
    healthy: () => ping(db),
    close: () => db.destroy(),
  };
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined, buffersMb: number, templateDir: string | undefined): Promise<Database> {
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    const pgDir = dataDir ? join(dataDir, "pg") : undefined;
    // Under the lock, so two first starts cannot both copy.
    if (pgDir && templateDir) copyTemplate(templateDir, pgDir);
    const pglite = await PGlite.create({
      dataDir: pgDir,
      loadDataDir,
      // On the command line, so postgresql.conf stays initdb's: the buffers are the bulk of an idle process.
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${buffersMb}MB`],
      extensions: pgliteExtensions,
      parsers: { 20: Number },
    });
    const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
    await ensureExtension(db, "pg_trgm");
    await ensureExtension(db, "vector");
    return {
      db,
      kind: "pglite",
      healthy: () => ping(db),
      dump: async () => (await pglite.dumpDataDir("gzip")) as Blob,
      close: async () => {
        await db.destroy();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/** Copies the template into `pgDir` when it holds no cluster yet (a copy cut short is removed and made again). */
function copyTemplate(templateDir: string, pgDir: string): void {
  if (existsSync(join(pgDir, "PG_VERSION")) || !existsSync(join(templateDir, "PG_VERSION"))) return;
  rmSync(pgDir, { recursive: true, force: true });
  const partial = `${pgDir}.copying`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(templateDir, partial, { recursive: true });
  // PG_VERSION appears only with the whole copy: a crash mid-copy leaves `.copying`, never a half cluster.
  renameSync(partial, pgDir);
}

async function ensureExtension(db: Kysely<any>, name: string) {
  try {
    await sql`create extension if not exists ${sql.id(name)}`.execute(db);
  } catch (err) {
    // Two processes creating it at once: the loser sees a duplicate; the extension exists either way.
    if ((err as { code?: string }).code !== "23505") throw err;
  }
}

async function ping(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
