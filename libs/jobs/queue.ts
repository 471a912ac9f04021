// What a queue is: its name, its payload, its retry policy and its handler, in one definition (one place per kind
// of work), and the ways a handler ends a job.
import type { UnitOfWork } from "@trove/db";

/** A job as its handler and hooks see it. */
export interface Job<P = unknown> {
  id: string;
  queue: string;
  key: string | null;
  group: string | null;
  accountId: string | null;
  payload: P;
  /** This run's number, from 1; a run interrupted by a stop is given back, one cut short by a crash is not. */
  attempt: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: number;
}

/** What a running job holds: its abort signal and the ways to write while, and as, it ends. */
export interface JobContext<P = unknown> {
  readonly job: Job<P>;
  /** Aborts when the lease is lost (another worker took the job over, it was cancelled) or a stop's grace ran out. */
  readonly signal: AbortSignal;
  /**
   * Ends the job as done, with `fn`'s writes in the same unit of work; refused with `LeaseLost` (and `fn`'s writes
   * rolled back) when this worker no longer holds the job. `fn` may run more than once (a batch of completions that
   * failed is written again one by one), so it only writes through the unit of work. A handler that returns without
   * calling it is completed with no writes of its own.
   */
  complete(fn?: (uow: UnitOfWork) => Promise<unknown>): Promise<void>;
  /** A unit of work that commits only while this worker holds the job (progress); it renews the lease too. */
  write<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T>;
}

export interface BackoffOptions {
  /** The wait before the second run (default 1 s); it doubles per failed run. */
  firstMs?: number;
  /** The longest wait (default 10 min). */
  maxMs?: number;
  /** The random part of a wait (default 0.2): between (1 - jitter) and 1 times the nominal wait. */
  jitter?: number;
}

export interface QueueDefinition<P = unknown> {
  /** Unique within the schema: 'capture', 'webhook', 'export'... */
  name: string;
  /** Runs a job may start; a failure after the last is final, and so is a job taken over once more. */
  maxAttempts: number;
  /** Retry waits after an ordinary failure; `schedule` takes precedence when given. */
  backoff?: BackoffOptions;
  /** The wait before the next run after the failure of run `attempt` (from 1), or null to fail now. */
  schedule?: (attempt: number, error: unknown) => number | null;
  /** Jobs of this queue one process runs at once (default 1); 0: this process enqueues but never claims. */
  concurrency?: number;
  /**
   * A concurrency group per job (an endpoint, a host): at most `limit` running at once in all processes. Every
   * job of a grouped queue has a group (from `of`, or the enqueue's `group`).
   */
  group?: {
    of?: (payload: P) => string | null;
    limit: number;
    /** The least time between the end of one job of a group and the start of the next (politeness to a host). */
    gapMs?: number;
  };
  /** The longest the worker sleeps between looks for due jobs of this queue (default 10 s); a wake comes sooner. */
  tickMs?: number;
  run(job: Job<P>, ctx: JobContext<P>): Promise<void>;
  /** The job failed for good: runs in the same unit of work that marks it failed, with the reason. */
  failed?(uow: UnitOfWork, job: Job<P>, reason: string): Promise<void>;
  /** The job is queued again (a retry, or given back on a stop): runs in that unit of work. */
  requeued?(uow: UnitOfWork, job: Job<P>, info: { reason: string | null; runAt: number }): Promise<void>;
}

export function defineQueue<P>(def: QueueDefinition<P>): QueueDefinition<P> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) throw new Error(`queue name "${def.name}": lower-case letters, digits and dashes`);
  if (!(Number.isInteger(def.maxAttempts) && def.maxAttempts >= 1)) throw new Error(`queue ${def.name}: maxAttempts must be 1 or more`);
  if (def.group && !(Number.isInteger(def.group.limit) && def.group.limit >= 1)) throw new Error(`queue ${def.name}: group limit must be 1 or more`);
  return def;
}

/** This worker no longer holds the job (taken over, cancelled, failed with its group, or released on a stop). */
export class LeaseLost extends Error {
  constructor(message = "the job's lease was lost") {
    super(message);
    this.name = "LeaseLost";
  }
}

/** Thrown by a handler: run again at `at` (ms), for a reason such as a Retry-After; it counts as a failed run. */
export class RetryAt extends Error {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = "RetryAt";
  }
}

/** Thrown by a handler: the job fails for good now, with this reason. */
export class FailNow extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "FailNow";
  }
}

export const retryAt = (at: number, reason: string): RetryAt => new RetryAt(at, reason);
export const failNow = (reason: string): FailNow => new FailNow(reason);

/** The reason given to a job whose runs were all cut short by crashes or lost leases. */
export const interruptedReason = (times: number): string => `interrupted ${times} times before it could finish`;
