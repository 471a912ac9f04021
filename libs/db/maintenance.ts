// PGlite runs PostgreSQL in single-user mode: no autovacuum worker ever runs (measured: 60,000 dead rows stayed, and
// no table was ever analyzed). Without it dead rows pile up, index-only scans find no visibility map and read the
// heap (list counts at 100k items: 177 ms unvacuumed), and the planner works from no statistics. So the embedded
// deployment vacuums for itself, by autovacuum's own default thresholds, one table at a time, through the one
// connection (kysely's PGlite driver lends it to one statement or transaction at a time, so VACUUM never lands
// inside a transaction). A VACUUM holds that connection while it runs: after a first large one, each pass only
// reads the pages changed since the last.
import { sql, type Kysely } from "kysely";

export interface MaintenanceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** How often the tables' counters are looked at. */
export const maintenanceEveryMs = 60_000;

/**
 * Tables past autovacuum's default thresholds (vacuum: 50 + 20% dead rows, or 1,000 + 20% inserted since the last
 * vacuum; analyze: 50 + 10% changed since the last analyze), most work first.
 */
async function due(db: Kysely<any>): Promise<{ schema: string; table: string }[]> {
  // Counters reach the shared statistics at most once a second, when idle: this statement's end flushes them.
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const rows = await sql<{ schema: string; table: string }>`
    select schemaname as schema, relname as "table" from pg_stat_user_tables
    where n_dead_tup > 50 + 0.2 * n_live_tup
       or n_ins_since_vacuum > 1000 + 0.2 * n_live_tup
       or n_mod_since_analyze > 50 + 0.1 * n_live_tup
    order by n_dead_tup + n_ins_since_vacuum + n_mod_since_analyze desc`.execute(db);
  return rows.rows;
}

/** One pass: VACUUM (ANALYZE) every table that is due; returns the tables done. */
export async function maintainOnce(db: Kysely<any>, log?: MaintenanceLog, isStopped: () => boolean = () => false): Promise<string[]> {
  const done: string[] = [];
  for (const t of await due(db)) {
    if (isStopped()) break;
    const started = performance.now();
    await sql`vacuum (analyze) ${sql.id(t.schema, t.table)}`.execute(db);
    done.push(`${t.schema}.${t.table}`);
    log?.info({ table: `${t.schema}.${t.table}`, ms: Math.round(performance.now() - started) }, "vacuumed");
  }
  return done;
}

/** Runs maintainOnce every `everyMs` until stopped; a failed pass is logged and the next one tried. */
export function startMaintenance(db: Kysely<any>, log: MaintenanceLog, everyMs = maintenanceEveryMs): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      running = maintainOnce(db, log, () => stopped)
        .catch((err) => log.warn({ err }, "vacuum pass failed; the next pass tries again"))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, everyMs);
    timer.unref?.();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
