// A pool of Bun worker threads for CPU-heavy work (page extraction now; embeddings and summaries later), so the
// event loop only routes. At most `size` tasks run at once, one per worker; at most `maxQueue` wait. A task past
// its deadline has its worker terminated (the only way to stop synchronous code) and replaced; a worker that
// dies is replaced too. Workers start when work arrives, so a process that never runs a task starts none, and with
// `idleMs` a worker that has had no task for that long stops, giving back what its tasks left loaded.
import type { Logger } from "@trove/log";
import {
  PoolBusyError,
  PoolClosedError,
  TaskFailedError,
  WorkerCrashedError,
  WorkerTimeoutError,
} from "./errors.ts";
import { niceFlag, type RunMessage, type WorkerMessage } from "./protocol.ts";

export interface PoolOptions {
  /** The worker script: a module that calls serveTasks() with its registry of named tasks. */
  script: string | URL;
  /** Tasks that run at once, one worker thread each. */
  size: number;
  /** Tasks that may wait for a worker; one more is refused at once with PoolBusyError. Default 64 per worker. */
  maxQueue?: number;
  /** Milliseconds a worker may wait for a task before it is stopped; unset, workers live as long as the pool. */
  idleMs?: number;
  /**
   * Steps of nice (1-19) the threads' scheduling priority is below the process's (at most nice 19), for background
   * work that must not slow what people wait for. Linux only; elsewhere the threads run at the process's priority.
   */
  nice?: number;
  /** Where worker replacements are reported. */
  log?: Logger;
}

export interface RunOptions {
  /** Milliseconds the task may run once a worker has it (waiting in the queue does not count). */
  deadlineMs?: number;
}

export interface PoolStats {
  size: number;
  /** Worker threads alive (started or starting). */
  workers: number;
  /** Tasks that have a worker (running, or sent as soon as their new worker is ready). */
  running: number;
  /** Tasks waiting for a worker. */
  queued: number;
}

interface Job {
  id: number;
  task: string;
  input: unknown;
  deadlineMs: number | undefined;
  resolve(output: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Set while the worker is ready and has no task: it stops when this fires. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  closed: Promise<void>;
}

export class WorkerPool {
  readonly size: number;
  private readonly maxQueue: number;
  private readonly script: string;
  private readonly log: Logger | undefined;
  private readonly idleMs: number | undefined;
  private readonly nice: number | undefined;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closing: Promise<void> | undefined;

  constructor(opts: PoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError(`pool size must be a positive integer, got ${opts.size}`);
    this.size = opts.size;
    this.maxQueue = opts.maxQueue ?? 64 * opts.size;
    this.script = opts.script instanceof URL ? opts.script.href : opts.script;
    this.log = opts.log;
    this.idleMs = opts.idleMs;
    if (opts.nice !== undefined && !(Number.isInteger(opts.nice) && opts.nice >= 1 && opts.nice <= 19)) {
      throw new RangeError(`nice must be an integer from 1 to 19, got ${opts.nice}`);
    }
    this.nice = opts.nice;
  }

  /** Runs the named task on a worker thread; rejects with a WorkerPoolError subclass when it cannot finish. */
  run<T = unknown>(task: string, input: unknown, opts: RunOptions = {}): Promise<T> {
    if (this.closing) return Promise.reject(new PoolClosedError(task));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new PoolBusyError(task, this.queue.length));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { id: this.nextId++, task, input, deadlineMs: opts.deadlineMs, resolve: resolve as (o: unknown) => void, reject };
      this.queue.push(job);
      this.pump();
    });
  }

  stats(): PoolStats {
    let running = 0;
    for (const slot of this.slots) if (slot.job) running++;
    return { size: this.size, workers: this.slots.size, running, queued: this.queue.length };
  }

  /** Terminates every worker; running and waiting tasks reject with PoolClosedError, later ones too. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const job of this.queue.splice(0)) job.reject(new PoolClosedError(job.task));
      const closed: Promise<void>[] = [];
      for (const slot of [...this.slots]) {
        const job = slot.job;
        this.discard(slot);
        if (job) job.reject(new PoolClosedError(job.task));
        closed.push(slot.closed);
      }
      // Terminated workers report "close" within milliseconds; do not hang a shutdown on one that does not.
      await Promise.race([Promise.all(closed), new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
    })();
    return this.closing;
  }

  // Hands waiting tasks to idle workers, and starts a worker for each task left, up to `size`.
  private pump(): void {
    if (this.closing) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.job) this.start(slot, this.queue.shift()!);
    }
    while (this.queue.length > 0 && this.slots.size < this.size) this.spawn(this.queue.shift()!);
  }

  // A new worker for `job`: the job is its own from now on and is sent once the worker reports ready.
  private spawn(job: Job): void {
    let worker: Worker;
    try {
      worker = new Worker(this.script, this.nice === undefined ? {} : { argv: [`${niceFlag}${this.nice}`] });
    } catch (err) {
      job.reject(new WorkerCrashedError(job.task, `cannot start ${this.script}: ${(err as Error).message}`));
      return;
    }
    let onClose!: () => void;
    const slot: Slot = { worker, ready: false, job, timer: undefined, idleTimer: undefined, closed: new Promise<void>((r) => (onClose = r)) };
    this.slots.add(slot);
    worker.addEventListener("message", (event: MessageEvent<WorkerMessage>) => this.onMessage(slot, event.data));
    worker.addEventListener("error", (event: ErrorEvent) => {
      // Handled here: the worker is replaced, the error reaches the task's caller.
      event.preventDefault();
      this.onDeath(slot, `uncaught error: ${firstLine(event.message)}`);
    });
    worker.addEventListener("close", (event: Event) => {
      onClose();
      this.onDeath(slot, `exited with code ${(event as Event & { code?: number }).code ?? "unknown"}`);
    });
  }

  // Gives `job` to `slot`; it is sent now if the worker is ready, else when it is.
  private start(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.job = job;
    if (slot.ready) this.send(slot);
  }

  private send(slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    // A busy worker keeps the process alive; an idle one does not.
    slot.worker.ref();
    const msg: RunMessage = { type: "run", id: job.id, task: job.task, input: job.input };
    try {
      slot.worker.postMessage(msg);
    } catch (err) {
      // The input cannot cross threads (a function, say): the task fails, the worker is fine.
      this.finish(slot);
      job.reject(new TaskFailedError(job.task, (err as Error).name, (err as Error).message, {}));
      this.pump();
      return;
    }
    if (job.deadlineMs !== undefined) slot.timer = setTimeout(() => this.onTimeout(slot), job.deadlineMs);
  }

  // The slot's job is over: the worker is idle.
  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.worker.unref();
    if (this.idleMs !== undefined) {
      clearTimeout(slot.idleTimer);
      slot.idleTimer = setTimeout(() => {
        if (this.slots.has(slot) && !slot.job) this.discard(slot);
      }, this.idleMs);
      slot.idleTimer.unref?.();
    }
  }

  private onMessage(slot: Slot, msg: WorkerMessage): void {
    if (!this.slots.has(slot)) return;
    if (msg.type === "ready") {
      slot.ready = true;
      if (slot.job) this.send(slot);
      else this.finish(slot);
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    this.finish(slot);
    if (msg.ok) job.resolve(msg.output);
    else job.reject(new TaskFailedError(job.task, msg.error.name, msg.error.message, msg.error.data));
    this.pump();
  }

  private onTimeout(slot: Slot): void {
    const job = slot.job;
    if (!job || !this.slots.has(slot)) return;
    this.discard(slot);
    this.log?.warn({ task: job.task, deadlineMs: job.deadlineMs }, "worker task past its deadline; worker replaced");
    job.reject(new WorkerTimeoutError(job.task, job.deadlineMs ?? 0));
    this.pump();
  }

  private onDeath(slot: Slot, why: string): void {
    if (!this.slots.has(slot)) return; // terminated on purpose
    const { job, ready } = slot;
    this.discard(slot);
    if (job && ready) {
      this.log?.warn({ task: job.task, why }, "worker died running a task; worker replaced");
      job.reject(new WorkerCrashedError(job.task, why));
    } else if (job) {
      // A worker that dies before it is ready would die again: its task fails rather than waiting for another.
      this.log?.error({ script: this.script, why }, "worker failed to start");
      job.reject(new WorkerCrashedError(job.task, `the worker failed to start: ${why}`));
    }
    this.pump();
  }

  private discard(slot: Slot): void {
    this.slots.delete(slot);
    clearTimeout(slot.timer);
    clearTimeout(slot.idleTimer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.worker.terminate();
  }
}

function firstLine(text: string): string {
  // Bun's message for an uncaught worker error carries a source excerpt; the last line names the error.
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^\w*error:/i.test(l)) ?? lines[lines.length - 1] ?? text;
}
