// The queues of one schema in this process: enqueueing (in the caller's unit of work, with a wake after its
// commit), and the worker that claims due jobs, keeps their leases alive, ends them (done, again later, failed
// for good) and gives them back on a stop. Several processes claim from one table safely: every claim has its own
// lease token, and every write of a job's end checks it, so a worker whose job was taken over writes nothing.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { inTransaction, type UnitOfWork } from "@trove/db";
import type { Logger } from "@trove/log";
import { jobClaims, jobCompletions, jobFailures } from "@trove/metrics";
import { retryDelayMs } from "./backoff.ts";
import { EndWriter, type EndingRun } from "./ends.ts";
import {
  FailNow,
  interruptedReason,
  LeaseLost,
  RetryAt,
  type Job,
  type JobContext,
  type QueueDefinition,
} from "./queue.ts";
import { QueueRepository, type JobState, type NewJob, type QueueCounts, type QueueDepth, type QueueRow } from "./repository.ts";
import { Wakeup } from "./wakeup.ts";

/** What the queues need of the bus: a broadcast to wake other processes' workers when a job is enqueued. */
export interface WakeBus {
  broadcast(subject: string, data: unknown): Promise<void>;
  listen(subject: string, handler: () => void): { stop(): Promise<void> };
  onReconnect(listener: () => void): { stop(): Promise<void> };
}

export interface QueueSetOptions {
  db: Kysely<any>;
  schema: string;
  log: Logger;
  /** A claim's lease; renewed every third of it while the job runs (TROVE_JOB_LEASE_MS). */
  leaseMs: number;
  bus?: WakeBus;
  /** Milliseconds now; tests pass a clock they move. */
  clock?: () => number;
  /** For the jitter of retry waits; defaults to Math.random. */
  random?: () => number;
}

export interface EnqueueOptions {
  /** At most one open job per (queue, key): another enqueue with the key moves the open one sooner, if anything. */
  key?: string;
  /** The concurrency group, over the definition's `group.of`. */
  group?: string | null;
  /** When it may run (ms); default now. */
  runAt?: number;
  accountId?: string;
  /** The job's id (a domain row's id); default a new UUIDv7. */
  id?: string;
}

/** A job inserted already claimed, for work a request has begun: `adopt` hands that work to the worker. */
export interface Claim<P = unknown> extends JobContext<P> {
  /**
   * The work's promise, ended like a handler's run (complete, throw to retry or fail). Call it once; the worker
   * keeps the lease alive from the commit of the unit of work that enqueued it, until the work ends.
   */
  adopt(work: Promise<unknown>): void;
}

export interface JobStatus {
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  lastError: string | null;
}

type QueueRef<P> = QueueDefinition<P> | string;

interface Running extends EndingRun {
  controller: AbortController;
  /** This worker's view of the lease's end. */
  leaseUntil: number;
  /** A claim made in a unit of work holds only once that commits: its writes wait for it. */
  ready?: Promise<void>;
  done?: Promise<void>;
}

const defaultTickMs = 10_000;
const doneKeptMs = 24 * 3_600_000;
const failedKeptMs = 30 * 24 * 3_600_000;
const sweepEveryMs = 3_600_000;

const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 2_000);

export class QueueSet {
  readonly schema: string;
  private readonly repo: QueueRepository;
  private readonly defs = new Map<string, QueueDefinition<any>>();
  private readonly running = new Map<string, Running>();
  private readonly wakeup: Wakeup;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly woken = new WeakMap<UnitOfWork, Set<string>>();
  private readonly subs: { stop(): Promise<void> }[] = [];
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private readonly ends: EndWriter;
  private lastSweep = Number.NEGATIVE_INFINITY;
  private started = false;
  private stopping = false;
  /** Claims this process made before its worker started (a request served while later services start): not recovered. */
  private readonly claimedEarly = new Set<string>();
  /** Set by the process's Jobs once it has started: a queue registered later starts its worker at once. */
  live = false;

  constructor(private readonly opts: QueueSetOptions) {
    this.schema = opts.schema;
    this.repo = new QueueRepository(opts.schema);
    this.ends = new EndWriter(opts.db, this.repo, opts.log);
    this.clock = opts.clock ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.wakeup = new Wakeup(() => this.step(), { log: opts.log, what: `the ${opts.schema} job worker`, maxBackoffMs: 10_000 });
  }

  /**
   * Adds a queue this process enqueues to and (with a concurrency above 0) works on. Registering a queue of the same
   * name again replaces it (a service started again in this process); jobs running keep the definition they began
   * with. A second replica in one process (tests) is a Jobs of its own.
   */
  register<P>(def: QueueDefinition<P>): QueueDefinition<P> {
    this.defs.set(def.name, def as QueueDefinition<any>);
    if (this.live) this.start();
    // Started already: look at once for the new queue's due jobs.
    this.wake();
    return def;
  }

  /** Starts claiming: now, after every wake, and at least every tick. */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.claimedEarly.clear();
    const bus = this.opts.bus;
    if (bus) {
      this.subs.push(bus.listen(`jobs.${this.schema}.*`, () => this.wake()));
      // Broadcasts sent while the connection was down were missed.
      this.subs.push(bus.onReconnect(() => this.wake()));
    }
    this.wakeup.poke();
  }

  // ---- enqueueing -------------------------------------------------------------------------------------------

  /** Adds a job in the caller's unit of work; workers are woken after its commit. Answers the job's id. */
  async enqueue<P>(uow: UnitOfWork, queue: QueueRef<P>, payload: P, opts: EnqueueOptions = {}): Promise<string> {
    const def = this.definition(queue);
    const now = this.clock();
    const job = this.newJob(def, payload, opts, now);
    await this.repo.insert(uow.db, [job], now);
    this.wakeAfter(uow, def.name);
    if (job.key === null) return job.id;
    return (await this.repo.openWithKey(uow.db, def.name, job.key)) ?? job.id;
  }

  /** Adds many jobs of one queue in the caller's unit of work (a fan-out), a thousand per statement. */
  async enqueueMany<P>(uow: UnitOfWork, queue: QueueRef<P>, jobs: ({ payload: P } & EnqueueOptions)[]): Promise<void> {
    if (jobs.length === 0) return;
    const def = this.definition(queue);
    const now = this.clock();
    await this.repo.insert(
      uow.db,
      jobs.map((j) => this.newJob(def, j.payload, j, now)),
      now,
    );
    this.wakeAfter(uow, def.name);
  }

  /**
   * Adds a job already claimed by this process, for work a request has already begun (a save's capture, a
   * source's first poll): hand the work to `adopt` once the unit of work has committed. If this process dies, the
   * job is taken over after its lease like any other. Refused when an open job has the key.
   */
  async enqueueClaimed<P>(uow: UnitOfWork, queue: QueueRef<P>, payload: P, opts: EnqueueOptions = {}): Promise<Claim<P>> {
    const def = this.definition(queue);
    const now = this.clock();
    const token = randomUUID();
    if (!this.started) this.claimedEarly.add(token);
    const job = { ...this.newJob(def, payload, opts, now), lease: { token, until: now + this.opts.leaseMs } };
    if (!(await this.repo.insertClaimed(uow.db, job, now))) throw new Error(`queue ${this.schema}.${def.name}: an open job has the key ${job.key}`);
    const run: Running = {
      token,
      def,
      job: {
        id: job.id,
        queue: def.name,
        key: job.key,
        group: job.group,
        accountId: job.accountId,
        payload,
        attempt: 1,
        maxAttempts: job.maxAttempts,
        lastError: null,
        createdAt: now,
      },
      controller: new AbortController(),
      leaseUntil: job.lease.until,
      ended: false,
      now: this.clock,
    };
    let committed!: () => void;
    const whenCommitted = new Promise<void>((resolve) => (committed = resolve));
    run.ready = whenCommitted;
    uow.afterCommit(() => {
      this.running.set(token, run);
      this.keepLeases();
      jobClaims.inc({ queue: this.label(def.name) });
      committed();
    });
    const ctx = this.context(run);
    return {
      ...ctx,
      job: run.job,
      signal: run.controller.signal,
      adopt: (work) => {
        if (run.done) throw new Error("a claim is adopted once");
        // Its outcome is read once the claim has committed; until then a rejection is not left unhandled.
        work.catch(() => {});
        // A unit of work that rolled back never commits: then nothing was claimed and the work's end is ignored.
        run.done = whenCommitted.then(() => this.settle(run, () => work)).finally(() => this.finished(run));
      },
    };
  }

  /** Removes the open job with this key (waiting or running; a running one's worker loses its lease). */
  async cancel(uow: UnitOfWork, queue: string, key: string): Promise<boolean> {
    const { found, token } = await this.repo.cancel(uow.db, queue, key);
    if (token) uow.afterCommit(() => this.lose(token, "the job was cancelled"));
    return found;
  }

  /** No job of the group starts until it is resumed (running ones finish). */
  async pauseGroup(uow: UnitOfWork, queue: string, group: string): Promise<void> {
    await this.repo.pauseGroup(uow.db, queue, group);
  }

  /** Jobs of the group may start again; with `dueNow`, its waiting jobs are due at once. */
  async resumeGroup(uow: UnitOfWork, queue: string, group: string, opts: { dueNow?: boolean } = {}): Promise<void> {
    await this.repo.resumeGroup(uow.db, queue, group, opts.dueNow ?? false, this.clock());
    this.wakeAfter(uow, queue);
  }

  /** Fails every open job of the group with `reason` (each with the queue's failure hook, in this unit of work). */
  async failGroup(uow: UnitOfWork, queue: string, group: string, reason: string): Promise<number> {
    const def = this.definition(queue);
    const rows = await this.repo.failGroup(uow.db, queue, group, reason, this.clock());
    for (const row of rows) await def.failed?.(uow, toJob(row), reason);
    const tokens = rows.map((r) => r.lease_token).filter((t): t is string => t !== null);
    if (tokens.length > 0) uow.afterCommit(() => tokens.forEach((t) => this.lose(t, "the job's group was failed")));
    return rows.length;
  }

  async status(id: string): Promise<JobStatus | undefined> {
    const row = await this.repo.get(this.opts.db, id);
    if (!row) return undefined;
    return { state: row.state, attempts: row.attempts, maxAttempts: row.max_attempts, runAt: Number(row.run_at), lastError: row.last_error };
  }

  /** Open jobs of every queue registered here, by queue (`<schema>.<queue>`); a queue with none shows zeros. */
  async depth(): Promise<QueueDepth[]> {
    const found = new Map((await this.repo.depthByQueue(this.opts.db, this.clock())).map((d) => [d.queue, d]));
    return [...this.defs.keys()].map((name) => ({ ...(found.get(name) ?? { queued: 0, due: 0, running: 0 }), queue: this.label(name) }));
  }

  /** What the health reply shows of this schema's queues. */
  counts(): Promise<QueueCounts> {
    return this.repo.counts(this.opts.db, this.clock());
  }

  /**
   * Every running job back to waiting, its interrupted run counted, each with its queue's `requeued` hook in the
   * same unit of work (an export's own row says queued again at once). Only for a process that alone uses its
   * database (the embedded deployment, whose data-directory lock proves it), once its services have registered
   * their queues and before its workers start or any work comes in: then every claim found belongs to a process
   * that is gone.
   */
  async recover(): Promise<number> {
    const now = this.clock();
    const n = await inTransaction(
      this.opts.db,
      async (uow) => {
        const rows = await this.repo.recover(uow.db, now, [...this.claimedEarly]);
        for (const row of rows) await this.defs.get(row.queue)?.requeued?.(uow, toJob(row), { reason: null, runAt: Number(row.run_at) });
        return rows.length;
      },
      { log: this.opts.log },
    );
    if (n > 0) this.opts.log.warn({ schema: this.schema, jobs: n }, "jobs left running by a stopped process are queued again");
    return n;
  }

  // ---- working ----------------------------------------------------------------------------------------------

  /**
   * Claims and runs every job due at `now` (default the clock), waits for them, and again until none is due:
   * tests drive the queue with it at a clock of their choosing. Answers how many runs it started.
   */
  async runDue(opts: { now?: number } = {}): Promise<number> {
    let ran = 0;
    while (!this.stopping) {
      const now = opts.now ?? this.clock();
      const clock = opts.now === undefined ? this.clock : () => now;
      const launched: Running[] = [];
      for (const def of this.defs.values()) {
        for (const row of await this.claimFor(def, 1_000, now)) launched.push(this.launch(def, row, clock));
      }
      if (launched.length === 0) break;
      ran += launched.length;
      await Promise.all(launched.map((r) => r.done));
    }
    return ran;
  }

  /** Extends the leases of the jobs this process runs; a job whose lease was lost is aborted. Runs every lease/3. */
  async renewLeases(): Promise<void> {
    const runs = [...this.running.values()].filter((r) => !r.ended);
    // One statement per clock (the process's, or the fixed time of a runDue), not one per job.
    const times = new Map<() => number, number>();
    const byUntil = new Map<number, Running[]>();
    for (const r of runs) {
      if (!times.has(r.now)) times.set(r.now, r.now());
      const until = times.get(r.now)! + this.opts.leaseMs;
      byUntil.set(until, [...(byUntil.get(until) ?? []), r]);
    }
    for (const [until, group] of byUntil) {
      try {
        const held = await this.repo.renew(this.opts.db, group.map((r) => r.token), until);
        for (const r of group) {
          if (held.has(r.token)) r.leaseUntil = Math.max(r.leaseUntil, until);
          else this.lose(r.token, "the job's lease was lost");
        }
      } catch (err) {
        this.opts.log.warn({ err, schema: this.schema }, "could not renew job leases");
        // Past its lease another worker may take the job; this one must not go on as if it held it.
        for (const r of group) if (r.leaseUntil < r.now()) this.lose(r.token, "the job's lease ran out while it could not be renewed");
      }
    }
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and gives them back
   * (waiting again, due now, the attempt returned) for the next start or another process.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.wakeup.stop();
    await Promise.allSettled(this.subs.splice(0).map((s) => s.stop()));
    const runs = [...this.running.values()];
    if (runs.length > 0 && graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled(runs.map((r) => r.done ?? new Promise(() => {}))),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    const left = [...this.running.values()].filter((r) => !r.ended);
    if (left.length > 0) this.opts.log.warn({ schema: this.schema, jobs: left.length }, "stopping: unfinished jobs are given back");
    await Promise.allSettled(
      left.map(async (r) => {
        r.controller.abort(new LeaseLost("the process is stopping"));
        const now = r.now();
        await this.ends.write(r, { kind: "again", runAt: now, reason: null, giveBack: true });
      }),
    );
    await this.ends.settled();
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.ends.close();
  }

  private wake(): void {
    if (this.started && !this.stopping) this.wakeup.poke();
  }

  private wakeAfter(uow: UnitOfWork, queue: string): void {
    let queues = this.woken.get(uow);
    if (!queues) this.woken.set(uow, (queues = new Set()));
    if (queues.has(queue)) return;
    queues.add(queue);
    uow.afterCommit(() => {
      this.wake();
      this.opts.bus?.broadcast(`jobs.${this.schema}.${queue}`, {}).catch((err: unknown) => this.opts.log.warn({ err }, "could not wake other job workers"));
    });
  }

  private async step(): Promise<number | null> {
    if (!this.started || this.stopping) return null;
    const now = this.clock();
    for (const def of this.defs.values()) {
      const free = (def.concurrency ?? 1) - this.runningOf(def.name);
      if (free <= 0 || this.stopping) continue;
      for (const row of await this.claimFor(def, free, now)) this.launch(def, row, this.clock);
    }
    if (now - this.lastSweep >= sweepEveryMs) {
      this.lastSweep = now;
      await this.repo.sweep(this.opts.db, { doneBefore: now - doneKeptMs, failedBefore: now - failedKeptMs, now, limit: 10_000 });
    }
    const working = [...this.defs.values()].filter((d) => (d.concurrency ?? 1) > 0);
    if (working.length === 0) return null;
    const tick = Math.min(...working.map((d) => d.tickMs ?? defaultTickMs));
    const next = await this.repo.nextDue(this.opts.db, {
      queues: working.map((d) => d.name),
      grouped: working.filter((d) => d.group).map((d) => d.name),
      mine: [...this.running.keys()],
      now,
    });
    return next === null ? tick : Math.max(0, Math.min(tick, next - this.clock()));
  }

  private async claimFor(def: QueueDefinition<any>, free: number, now: number): Promise<QueueRow[]> {
    const o = { queue: def.name, free, now, leaseUntil: now + this.opts.leaseMs };
    return def.group ? this.repo.claimGrouped(this.opts.db, { ...o, limit: def.group.limit }) : this.repo.claim(this.opts.db, o);
  }

  private launch(def: QueueDefinition<any>, row: QueueRow, now: () => number): Running {
    const run: Running = {
      token: row.lease_token!,
      def,
      job: toJob(row),
      controller: new AbortController(),
      leaseUntil: Number(row.lease_until),
      ended: false,
      now,
    };
    this.running.set(run.token, run);
    this.keepLeases();
    jobClaims.inc({ queue: this.label(def.name) });
    run.done = this.execute(run).finally(() => this.finished(run));
    return run;
  }

  private finished(run: Running): void {
    this.running.delete(run.token);
    if (this.running.size === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
    // A place is free: the next due job starts now rather than at the next tick.
    this.wake();
  }

  private async execute(run: Running): Promise<void> {
    const { job, def } = run;
    const log = this.opts.log.child({ queue: `${this.schema}.${def.name}`, jobId: job.id, attempt: job.attempt });
    if (job.attempt > job.maxAttempts) {
      // Every run it was given was cut short (a crash, a lease lost): it is not tried once more.
      const reason = interruptedReason(job.maxAttempts);
      if (await this.ends.write(run, { kind: "failed", reason }).catch((err: unknown) => void log.error({ err }, "could not fail an interrupted job"))) {
        jobFailures.inc({ queue: this.label(def.name), final: "true" });
        log.warn({ reason }, "job failed");
      }
      return;
    }
    log.debug(job.attempt > 1 ? "job resumed" : "job started");
    await this.settle(run, () => def.run(job, this.context(run)), log);
  }

  /** Ends a run by its work's outcome: done when it returns, again later or failed when it throws. */
  private async settle(run: Running, work: () => Promise<unknown>, log = this.opts.log.child({ queue: `${this.schema}.${run.def.name}`, jobId: run.job.id })): Promise<void> {
    try {
      await work();
      if (!run.ended) await this.context(run).complete();
    } catch (err) {
      await this.afterThrow(run, err, log).catch((e: unknown) => log.error({ err: e }, "could not record a job's failure; its lease will run out"));
    }
  }

  private async afterThrow(run: Running, err: unknown, log: Logger): Promise<void> {
    if (run.ended) {
      // Expected when a stop gave the job back (its aborted work throws on its way out); otherwise a handler's bug.
      if (this.stopping || run.controller.signal.aborted) log.debug({ err }, "a job's handler threw after the job had ended");
      else log.error({ err }, "a job's handler threw after the job had ended");
      return;
    }
    if (err instanceof LeaseLost || run.controller.signal.aborted) {
      // Taken over, cancelled, or given back by a stop: whoever holds it now decides.
      log.warn({ reason: describeError(run.controller.signal.reason ?? err) }, "job abandoned");
      return;
    }
    const { attempt, maxAttempts } = run.job;
    let reason: string;
    let runAt: number | null;
    if (err instanceof FailNow) {
      reason = err.reason;
      runAt = null;
    } else if (err instanceof RetryAt) {
      reason = err.reason;
      runAt = attempt < maxAttempts ? err.at : null;
    } else {
      reason = describeError(err);
      const delay = attempt < maxAttempts ? retryDelayMs(run.def, attempt, err, this.random) : null;
      runAt = delay === null ? null : run.now() + delay;
    }
    // A handler's own decision (retryAt, failNow) is no fault of ours: its reason says it all, without a stack, and
    // a retry it asked for is routine (a webhook receiver that answered 503).
    const decided = err instanceof FailNow || err instanceof RetryAt;
    const detail = decided ? { reason } : { err, reason };
    if (runAt === null) {
      if (await this.ends.write(run, { kind: "failed", reason })) {
        jobFailures.inc({ queue: this.label(run.def.name), final: "true" });
        log.warn(detail, "job failed");
      }
    } else if (await this.ends.write(run, { kind: "again", runAt, reason, giveBack: false })) {
      jobFailures.inc({ queue: this.label(run.def.name), final: "false" });
      if (decided) log.info({ ...detail, retryAt: runAt }, "job will run again");
      else log.warn({ ...detail, retryAt: runAt }, "job will run again");
    }
  }

  private context(run: Running): JobContext<any> {
    return {
      job: run.job,
      signal: run.controller.signal,
      complete: async (fn) => {
        await run.ready;
        if (run.ended) throw new Error("the job has ended already");
        run.controller.signal.throwIfAborted();
        if (!(await this.ends.write(run, { kind: "done", fn }))) {
          this.lose(run.token, "the job's lease was lost");
          throw new LeaseLost();
        }
        jobCompletions.inc({ queue: this.label(run.def.name) });
      },
      write: async (fn) => {
        await run.ready;
        return inTransaction(
          this.opts.db,
          async (uow) => {
            run.controller.signal.throwIfAborted();
            const until = run.now() + this.opts.leaseMs;
            if (!(await this.repo.holds(uow.db, run.job.id, run.token, until))) {
              uow.afterCommit(() => this.lose(run.token, "the job's lease was lost"));
              throw new LeaseLost();
            }
            run.leaseUntil = Math.max(run.leaseUntil, until);
            return fn(uow);
          },
          { log: this.opts.log },
        );
      },
    };
  }

  private lose(token: string, why: string): void {
    const run = this.running.get(token);
    if (run && !run.controller.signal.aborted) run.controller.abort(new LeaseLost(why));
  }

  private keepLeases(): void {
    if (this.renewTimer !== undefined) return;
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.opts.leaseMs / 3)));
  }

  /** A queue's name in metrics: `<schema>.<queue>`. */
  private label(queue: string): string {
    return `${this.schema}.${queue}`;
  }

  private runningOf(queue: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.def.name === queue) n++;
    return n;
  }

  private definition<P>(queue: QueueRef<P>): QueueDefinition<P> {
    const def = typeof queue === "string" ? this.defs.get(queue) : queue;
    if (!def) throw new Error(`queue ${this.schema}.${String(queue)} is not registered`);
    return def as QueueDefinition<P>;
  }

  private newJob<P>(def: QueueDefinition<P>, payload: P, opts: EnqueueOptions, now: number): NewJob {
    const group = opts.group !== undefined ? opts.group : (def.group?.of?.(payload) ?? null);
    // A grouped queue's claim walks its groups: a job outside every group would never be found.
    if (def.group && group === null) throw new Error(`queue ${this.schema}.${def.name} keeps its jobs in groups: this job has none`);
    if (!def.group && group !== null) throw new Error(`queue ${this.schema}.${def.name} has no groups: a job cannot have one`);
    return {
      id: opts.id ?? Bun.randomUUIDv7(),
      queue: def.name,
      key: opts.key ?? null,
      group,
      accountId: opts.accountId ?? null,
      payload,
      maxAttempts: def.maxAttempts,
      runAt: opts.runAt ?? now,
    };
  }
}

function toJob(row: QueueRow): Job<any> {
  return {
    id: row.id,
    queue: row.queue,
    key: row.key,
    group: row.group_key,
    accountId: row.account_id,
    payload: row.payload,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    createdAt: Number(row.created_at),
  };
}
