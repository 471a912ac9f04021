// A loop woken by pokes (after a commit, say), by its own timer, and retried after a failure: one run at a time,
// one more run when poked during a run, and after a failure another try with exponential backoff and jitter (so
// the replicas that failed together, on a database restart, do not all come back in the same instant). The step
// says when it wants to run again unpoked. Timers and randomness can be given, so tests drive it without sleeping.
import type { Logger } from "@trove/log";

export interface WakeupTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface WakeupOptions {
  log: Pick<Logger, "warn">;
  /** Named in the warning a failed run logs. */
  what: string;
  /** The longest wait after failures (default 30 s). */
  maxBackoffMs?: number;
  /** The wait after the first failure (default 500 ms); it doubles with each failure in a row. */
  firstBackoffMs?: number;
  /** The fraction of a backoff that is random (default 0.2): a wait is between (1 - jitter) and 1 times its nominal value. */
  jitter?: number;
  /** Defaults to the global setTimeout/clearTimeout. */
  timers?: WakeupTimers;
  /** Defaults to Math.random. */
  random?: () => number;
}

/** One run: the delay before running again unpoked, or null to wait for the next poke. */
export type WakeupStep = () => Promise<number | null>;

const realTimers: WakeupTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The wait after `failures` failed runs in a row (1 or more): nominal backoff, less up to `jitter` of it. */
export function backoffMs(failures: number, opts: Pick<WakeupOptions, "maxBackoffMs" | "firstBackoffMs" | "jitter">, random: () => number = Math.random): number {
  const max = opts.maxBackoffMs ?? 30_000;
  const nominal = Math.min(max, (opts.firstBackoffMs ?? 500) * 2 ** Math.min(failures - 1, 30));
  return Math.round(nominal * (1 - (opts.jitter ?? 0.2) * random()));
}

export class Wakeup {
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private failures = 0;
  private timer: unknown;
  private readonly timers: WakeupTimers;

  constructor(
    private readonly step: WakeupStep,
    private readonly opts: WakeupOptions,
  ) {
    this.timers = opts.timers ?? realTimers;
  }

  /** True once stop() was called: a long step checks it between batches. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Run now, or once more after the run in progress. */
  poke(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.clearTimer();
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) this.poke();
    });
  }

  /** No run starts after this; resolves once the run in progress has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.clearTimer();
    await this.running;
  }

  private clearTimer() {
    if (this.timer === undefined) return;
    this.timers.clear(this.timer);
    this.timer = undefined;
  }

  private async run() {
    this.again = false;
    let next: number | null;
    try {
      next = await this.step();
      this.failures = 0;
    } catch (err) {
      this.failures++;
      next = backoffMs(this.failures, this.opts, this.opts.random);
      this.opts.log.warn({ err, retryInMs: next }, `${this.opts.what} failed; will retry`);
    }
    if (!this.stopping && !this.again && next !== null) {
      this.timer = this.timers.set(() => {
        this.timer = undefined;
        this.poke();
      }, next);
    }
  }
}
