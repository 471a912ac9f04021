// A background job woken by pokes (an outbox publisher, say): one run at a time, one more run when poked during a
// run, and after a failure another try with exponential backoff. The step says when it wants to run again unpoked.
import type { Logger } from "@trove/log";

export interface PumpOptions {
  log: Logger;
  /** Named in the warning a failed run logs. */
  what: string;
  maxBackoffMs?: number;
}

/** One run of the job: the delay before running again unpoked, or null to wait for the next poke. */
export type PumpStep = () => Promise<number | null>;

export class Pump {
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly step: PumpStep,
    private readonly opts: PumpOptions,
  ) {}

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
    clearTimeout(this.timer);
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) this.poke();
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run() {
    this.again = false;
    let next: number | null;
    try {
      next = await this.step();
      this.failures = 0;
    } catch (err) {
      this.failures++;
      next = Math.min(this.opts.maxBackoffMs ?? 30_000, 250 * 2 ** this.failures);
      this.opts.log.warn({ err, retryInMs: next }, `${this.opts.what} failed; will retry`);
    }
    if (!this.stopping && !this.again && next !== null) this.timer = setTimeout(() => this.poke(), next);
  }
}
