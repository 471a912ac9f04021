// What a service gets when it starts, and the shape every service module has.
import type { Config } from "@trove/config";
import type { Bus } from "@trove/bus";
import type { Database } from "@trove/db";
import type { Events } from "@trove/eventlog";
import type { Jobs } from "@trove/jobs";
import type { BlobStore } from "@trove/blobs";
import type { Logger } from "@trove/log";
import type { ServiceName } from "@trove/contracts";
import type { Resolver } from "@trove/webfetch";
import type { WorkerPool } from "@trove/workers";

export interface Runtime {
  config: Config;
  log: Logger;
  bus: Bus;
  database: Database;
  /** Uploaded files: under the data directory, or the NATS Object Store. */
  blobs: BlobStore;
  /** The process's worker threads for CPU-heavy tasks (libs/host/tasks.ts names them); one pool per process. */
  workers: WorkerPool;
  /**
   * The embedding model's thread (the same worker script, one thread): the model loads in that thread only, so the
   * process holds it once, and the extraction threads never load it. It stops when idle like the others.
   */
  embedWorkers: WorkerPool;
  /**
   * The database's event log: record events in a change's unit of work, read a stream's pages, consume with a
   * durable position. Started after every service has started; its consumers stop before the services' stop.
   */
  events: Events;
  /**
   * The work queues: `jobs.for(schema)` registers a service's queues and enqueues in its units of work. The host
   * starts the workers after the services and stops them (finish, or give back) once intake has stopped, before
   * the event consumers and the services' own stop.
   */
  jobs: Jobs;
  /** "embedded" when every service shares this process. */
  deployment: "embedded" | "distributed";
  /** Name resolution for outgoing fetches; unset = the system resolver. Tests pass one that never asks DNS. */
  resolver?: Resolver;
}

export interface RunningService {
  /**
   * The stop's first phase, for a service that takes work in from outside (HTTP, SMTP): stop accepting and let
   * what is in flight finish. Every service still answers on the bus meanwhile. The host calls it before the job
   * workers and event consumers stop.
   */
  stopIntake?(): Promise<void>;
  /** The last phase: after job workers and event consumers have stopped; ends bus handlers and the rest. */
  stop(): Promise<void>;
  /** Set by the gateway: where it listens. */
  url?: string;
}

export interface ServiceModule {
  name: ServiceName;
  /**
   * The PostgreSQL schema the service owns and its migrations folder; the host migrates it before start. With
   * `queue`, the schema also gets the work queue's tables (made before the service's own migrations, so one of
   * them can move rows into the queue) and the service's health reply counts its jobs.
   */
  schema?: { name: string; migrations: string; queue?: boolean };
  start(rt: Runtime): Promise<RunningService>;
}
