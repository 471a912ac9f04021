// The work queues of one process: one QueueSet per service schema that keeps jobs, made on first use. The host
// makes it, migrates the queue tables of every service that asks for them, starts the workers once the services
// have started, and stops them (finish or give back) after the services have stopped taking work in.
import { join } from "node:path";
import type { Kysely } from "kysely";
import { migrateSchema } from "@trove/db";
import type { Logger } from "@trove/log";
import type { QueueDepth } from "./repository.ts";
import { QueueSet, type WakeBus } from "./worker.ts";

export interface JobsOptions {
  db: Kysely<any>;
  log: Logger;
  leaseMs: number;
  bus?: WakeBus;
  clock?: () => number;
  random?: () => number;
}

/** The queue tables' migrations folder (bound: run into each schema that keeps jobs). */
export const queueMigrations = join(import.meta.dir, "migrations");

/** Makes or brings up to date `<schema>.queue` and `<schema>.queue_groups` (recorded in `<schema>.queue_migrations`). */
export function migrateQueue(db: Kysely<any>, schema: string): Promise<void> {
  return migrateSchema(db, schema, queueMigrations, { table: "queue_migrations", bound: true });
}

export class Jobs {
  private readonly sets = new Map<string, QueueSet>();
  private started = false;

  constructor(private readonly opts: JobsOptions) {}

  /** The queues kept in `schema` (its tables made by `migrateQueue`). */
  for(schema: string): QueueSet {
    let set = this.sets.get(schema);
    if (!set) {
      set = new QueueSet({ ...this.opts, schema, log: this.opts.log.child({ jobs: schema }) });
      set.live = this.started;
      this.sets.set(schema, set);
    }
    return set;
  }

  /** Starts every schema's worker; a queue registered later (a service started late) starts at once. */
  start(): void {
    this.started = true;
    for (const set of this.sets.values()) {
      set.live = true;
      set.start();
    }
  }

  /** Open jobs of every queue registered in this process, by queue (`<schema>.<queue>`). */
  async depth(): Promise<QueueDepth[]> {
    return (await Promise.all([...this.sets.values()].map((s) => s.depth()))).flat();
  }

  /** Stops every worker: running jobs get `graceMs` to finish, then are given back. */
  async stop(graceMs: number): Promise<void> {
    await Promise.all([...this.sets.values()].map((s) => s.stop(graceMs)));
  }
}
