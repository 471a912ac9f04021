// Runs one or more services in this process: config, logger, one database, one bus and one worker pool shared
// by them, a health subject per service, the admin server (health, readiness, metrics), and a graceful stop on
// SIGTERM/SIGINT.
import { ConfigError, config as loadConfig, type Config } from "@trove/config";
import { openBus, type Bus } from "@trove/bus";
import { migrateSchema, migrationFiles, openDatabase, startMaintenance, usableTemplate, type Database } from "@trove/db";
import { Jobs, migrateQueue, queueMigrations, type QueueCounts } from "@trove/jobs";
import { createLogger, flushLogs, type Logger } from "@trove/log";
import { openBlobs } from "@trove/blobs";
import { EventLog, eventLogMigrations, eventLogSchema, migrateEventLog } from "@trove/eventlog";
import type { Resolver } from "@trove/webfetch";
import { WorkerPool } from "@trove/workers";
import { startAdminServer, type AdminServer } from "./admin.ts";
import { observeHost } from "./observe.ts";
import { Readiness } from "./readiness.ts";
import type { RunningService, Runtime, ServiceModule } from "./runtime.ts";

export interface Host {
  runtime: Runtime;
  /** The gateway's address, when this host runs the gateway. */
  url: string | undefined;
  /** The admin server's address (/healthz, /readyz, /metrics), when this host serves one. */
  adminUrl: string | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** Tests pass an already opened (template) database. */
  database?: Database;
  bus?: Bus;
  /** Name resolution for outgoing fetches (tests: one that never asks DNS). */
  resolver?: Resolver;
  /**
   * Serve /healthz, /readyz and /metrics on config.adminPort and config.adminHost (runMain: unless
   * TROVE_ADMIN_PORT=off). Started first, so a long migration still answers /healthz; closed last.
   */
  admin?: boolean;
}

/**
 * Starts the modules in order. stop() is phased, the same in every process: intake stops, job workers finish or
 * give back, event consumers finish their batch, then the services stop in reverse and the shared parts close.
 */
export async function startHost(modules: ServiceModule[], opts: StartOptions): Promise<Host> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel, { svc: modules.map((m) => m.name).join(",") });
  const readiness = new Readiness();
  let admin: AdminServer | undefined;
  try {
    // A port in use fails the start: probes sent to it would otherwise reach whatever holds it.
    if (opts.admin && config.adminPort !== null) {
      admin = startAdminServer({ port: config.adminPort, host: config.adminHost, readiness, log: log.child({ component: "admin" }) });
    }
  } catch (err) {
    // What the caller opened for this host is closed, as any failed start closes it.
    await opts.bus?.close().catch(() => {});
    await opts.database?.close().catch(() => {});
    throw err;
  }
  try {
    return await startParts(modules, opts, log, readiness, admin);
  } catch (err) {
    await admin?.stop();
    throw err;
  }
}

async function startParts(modules: ServiceModule[], opts: StartOptions, log: Logger, readiness: Readiness, admin: AdminServer | undefined): Promise<Host> {
  const { config } = opts;
  const deployment = modules.length > 1 && !config.natsUrl ? "embedded" : "distributed";
  const database = opts.database ?? (await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    buffersMb: config.dbBuffersMb,
    // A new embedded data directory starts as a copy of the install-time template (no initdb at run time).
    templateDir: config.databaseUrl ? undefined : usableTemplate(await migrationNames(modules)),
  }));
  const bus =
    opts.bus ??
    (await openBus({ natsUrl: config.natsUrl, prefix: config.busPrefix, log, name: modules.map((m) => m.name).join(","), access: config.natsAccess }));
  const blobs = await openBlobs({ natsUrl: config.natsUrl, prefix: config.busPrefix, dataDir: config.dataDir, access: config.natsAccess });
  // Threads start on first use, so a process whose services never run a task starts none.
  // An idle thread stops after workerIdleMs, so the memory of a burst (a parsed page, the embedding model) goes back.
  const script = new URL("./tasks.ts", import.meta.url);
  const workers = new WorkerPool({ script, size: config.extractWorkers, idleMs: config.workerIdleMs, log });
  // Embedding is background work: its thread runs 10 steps of nice below the process, so it takes the CPU that
  // saves and reads leave idle (on a 2-core machine it otherwise took a third of the save throughput).
  const embedWorkers = new WorkerPool({ script, size: 1, idleMs: config.workerIdleMs, nice: 10, log });
  // PGlite's data-directory lock makes this the database's only process.
  const events = new EventLog({ db: database.db, bus, log: log.child({ component: "eventlog" }), soleProcess: database.kind === "pglite" });
  const jobs = new Jobs({ db: database.db, bus, log: log.child({ component: "jobs" }), leaseMs: config.jobLeaseMs });
  const runtime: Runtime = { config, log, bus, database, blobs, workers, embedWorkers, events, jobs, deployment, resolver: opts.resolver };
  const running: RunningService[] = [];
  try {
    await migrateModules(modules, database);
    for (const m of modules) running.push(await m.start({ ...runtime, log: log.child({ service: m.name }), events: events.forService(m.name) }));
    // PGlite's data directory is locked to one process: every job found running was claimed by a dead process
    // (a crash, a kill), so it is queued again now: after the services registered their queues (whose hooks mark
    // their own rows queued again in the same unit of work), before any worker claims.
    if (database.kind === "pglite") {
      for (const m of modules) if (m.schema?.queue) await jobs.for(m.schema.name).recover();
    }
    // After every service: a consumer's first batch may need a service started after its own.
    await events.start();
    jobs.start();
  } catch (err) {
    await events.stop().catch(() => {});
    await Promise.allSettled(running.map((r) => r.stop()));
    await jobs.stop(0);
    await Promise.all([workers.close(), embedWorkers.close()]);
    await bus.close().catch(() => {});
    await blobs.close().catch(() => {});
    await database.close().catch(() => {});
    throw err;
  }
  // PGlite has no autovacuum: the embedded process vacuums for itself (libs/db/maintenance.ts).
  const maintenance = database.kind === "pglite" ? startMaintenance(database.db, log.child({ task: "vacuum" })) : undefined;
  // Health answers only once every operation is served, so "ok" means ready.
  const healthSubs = modules.map((m) =>
    bus.serve(`${m.name}.health`, async () => {
      const [databaseOk, queue, lag] = await Promise.all([database.healthy(), m.schema?.queue ? queueCounts(jobs, m.schema.name) : undefined, eventLag(events, m.name)]);
      return { ok: true, database: databaseOk, ...(queue ? { queue } : {}), ...(lag ? { events: lag } : {}) };
    }),
  );
  // Scrapes read this host's queues, consumers and pool only where they can be scraped.
  const unobserve = admin ? observeHost({ events, jobs, workers, embedWorkers }) : undefined;
  if (admin) await readiness.running({ database: () => database.healthy(), bus: () => bus.healthy() });
  let stopping: Promise<void> | undefined;
  return {
    runtime,
    url: running.find((r) => r.url)?.url,
    adminUrl: admin?.url,
    stop: () =>
      (stopping ??= (async () => {
        // 0. Not ready from now on (/readyz 503), so a load balancer stops sending work while what is under way ends.
        readiness.stopping();
        // 1. Intake: the gateway and the mail listener stop accepting, and on NATS this process takes no more
        // requests (the other replicas do); what is in flight finishes, and this process's own work under way is
        // still answered by its services, so work that asks another service can finish.
        await Promise.all([
          ...running.map((r) => r.stopIntake?.().catch((err) => log.error({ err }, "stopping intake failed"))),
          bus.stopServing().catch((err) => log.error({ err }, "stopping serving requests failed")),
        ]);
        // 2. Running jobs get the grace to finish; the rest go back to the queue, their runs not counted.
        await jobs.stop(config.stopGraceMs).catch((err) => log.error({ err }, "job workers stop failed"));
        // 3. Consumers finish the batch in hand; on NATS the relay's last pass publishes what has committed. In
        // process, what commits from here on waits in the log for the consumers' next start.
        await events.stop().catch((err) => log.error({ err }, "stopping the event log failed"));
        // 4. Each service's own stop (its bus handlers), in reverse start order, then what they all shared.
        for (const r of [...running].reverse()) await r.stop().catch((err) => log.error({ err }, "stop failed"));
        for (const s of healthSubs) await s.stop().catch(() => {});
        await maintenance?.stop();
        unobserve?.();
        // After the services: a stopping service may still be waiting on a task.
        await Promise.all([workers.close(), embedWorkers.close()]);
        await bus.close().catch((err) => log.error({ err }, "bus close failed"));
        await blobs.close().catch(() => {});
        await database.close().catch((err) => log.error({ err }, "database close failed"));
        // Last: /healthz answers (and /readyz says stopping) for as long as the stop takes.
        await admin?.stop().catch((err) => log.error({ err }, "admin server close failed"));
      })()),
  };
}

/** Runs the event log's and every module's migrations (start does this; `bun run db:migrate` does only this). */
export async function migrateModules(modules: ServiceModule[], database: Database): Promise<void> {
  // First: a service's migration may move its rows into the log.
  await migrateEventLog(database.db);
  for (const m of modules) {
    if (!m.schema) continue;
    if (m.schema.queue) await migrateQueue(database.db, m.schema.name);
    await migrateSchema(database.db, m.schema.name, m.schema.migrations);
  }
}

/** Every migration `migrateModules` runs, named `<schema>/<file>` (queue tables: `<schema>/queue/<file>`). */
export async function migrationNames(modules: ServiceModule[]): Promise<string[]> {
  const names = (await migrationFiles(eventLogMigrations)).map((f) => `${eventLogSchema}/${f}`);
  const queue = await migrationFiles(queueMigrations);
  for (const m of modules) {
    if (!m.schema) continue;
    if (m.schema.queue) names.push(...queue.map((f) => `${m.schema!.name}/queue/${f}`));
    names.push(...(await migrationFiles(m.schema.migrations)).map((f) => `${m.schema!.name}/${f}`));
  }
  return names;
}

/** A service's jobs for its health reply; none when the database cannot say (the reply's `database` tells why). */
async function queueCounts(jobs: Jobs, schema: string): Promise<QueueCounts | undefined> {
  return jobs.for(schema).counts().catch(() => undefined);
}

/** A service's event consumers and how many events they have yet to acknowledge (none when it has none). */
async function eventLag(events: EventLog, service: string): Promise<{ lag: number } | undefined> {
  try {
    const lags = Object.values(await events.lagOfService(service));
    return lags.length === 0 ? undefined : { lag: lags.reduce((a, b) => a + b, 0) };
  } catch {
    // Health still answers when the count cannot be had; the database flag says why.
    return undefined;
  }
}

/** Process entry: parse the operator contract, start, stop gracefully on SIGTERM/SIGINT. */
export async function runMain(modules: ServiceModule[]): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`trove: invalid configuration: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config.logLevel, { svc: modules.map((m) => m.name).join(",") });
  let host: Host;
  try {
    host = await startHost(modules, { config, log, admin: true });
  } catch (err) {
    log.fatal({ err }, "start failed");
    flushLogs();
    console.error(`trove: start failed: ${(err as Error).message}`);
    process.exit(1);
  }
  log.info({ deployment: host.runtime.deployment, database: host.runtime.database.kind, bus: host.runtime.bus.kind, admin: host.adminUrl ?? "off" }, "started");
  const shutdown = (signal: string) => {
    log.info({ signal }, "stopping");
    host.stop().then(
      () => {
        flushLogs();
        process.exit(0);
      },
      () => {
        flushLogs();
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
