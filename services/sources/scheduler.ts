// When sources run: each replica claims due sources under a lease (one replica runs a source at a time), runs
// them a few at once, and sleeps until the earliest next poll (at most maxSleepMs: TROVE_SOURCES_TICK_MS), woken at
// once by a create or resume here. A replica that dies mid-run leaves its lease to expire (leaseTtlSec); stop()
// awaits the scheduler's runs in flight and, for at most stopGraceMs, the first polls that creates run here.
import { nowSeconds } from "@trove/db";
import { Pump } from "@trove/host";
import type { Logger } from "@trove/log";
import type { LeasesRepository } from "./leases.repository.ts";
import type { RunReport, SourceRunner } from "./source-runner.ts";
import type { SourceRow } from "./sources.repository.ts";

export interface SchedulerOptions {
  /** This replica's name in leases. */
  owner: string;
  /** How long a lease holds: longer than any run (fetch deadlines plus adding a feed's entries). */
  leaseTtlSec: number;
  /** Sources run at once by this replica. */
  concurrency: number;
  /** The longest sleep between looks at the table (other replicas' creates and resumes are seen by then). */
  maxSleepMs: number;
  /** How long stop() waits for creates' first polls still running (beyond it, their leases expire as a dead replica's). */
  stopGraceMs: number;
  log: Logger;
}

export const defaultLeaseTtlSec = 300;
/** Sources one replica runs at once. */
export const defaultConcurrency = 4;
/** A first poll is bounded by its fetch (20 s) and parse (10 s) deadlines; stop waits that long for one. */
export const defaultStopGraceMs = 30_000;

export class Scheduler {
  private readonly pump: Pump;
  /** Unstarted (tests driving runDue), a wake does nothing. */
  private started = false;
  /** Creates' first polls running here (runLeased), which stop() waits for. */
  private readonly firstPolls = new Set<Promise<unknown>>();

  constructor(
    private readonly leases: LeasesRepository,
    private readonly runner: SourceRunner,
    private readonly opts: SchedulerOptions,
  ) {
    this.pump = new Pump(() => this.tick(), { log: opts.log, what: "source scheduler", maxBackoffMs: opts.maxSleepMs });
  }

  start(): void {
    this.started = true;
    this.pump.poke();
  }

  /** A source became due here (resumed): look now. */
  wake(): void {
    if (this.started) this.pump.poke();
  }

  async stop(): Promise<void> {
    await Promise.all([this.pump.stop(), this.firstPollsDone()]);
  }

  /** Claims and runs every source due at `now`; answers how many ran. Tests drive it with a later clock. */
  async runDue(now = nowSeconds()): Promise<number> {
    let ran = 0;
    while (!this.pump.stopped) {
      const claimed = await this.leases.claimDue(this.opts.owner, now, this.opts.leaseTtlSec, this.opts.concurrency);
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((row) => this.runner.run(row, now)));
      ran += claimed.length;
    }
    return ran;
  }

  /** The lease a create takes on its new source, so that no scheduler claims it before its first poll. */
  leaseFor(now: number): { owner: string; until: number } {
    return { owner: this.opts.owner, until: now + this.opts.leaseTtlSec };
  }

  /**
   * Runs a source created under leaseFor() now (its first poll, answered by the create), then `after` (the create
   * reads the source back). stop() waits for both, so a stopping replica does not close the database under them.
   */
  runLeased<T>(row: SourceRow, after: (report: RunReport) => Promise<T>): Promise<T> {
    const work = this.runner.run(row, nowSeconds()).then(after);
    this.firstPolls.add(work);
    work.then(
      () => this.firstPolls.delete(work),
      () => this.firstPolls.delete(work),
    );
    return work;
  }

  private async firstPollsDone(): Promise<void> {
    if (this.firstPolls.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), this.opts.stopGraceMs)));
    const outcome = await Promise.race([Promise.allSettled([...this.firstPolls]), grace]);
    clearTimeout(timer);
    if (outcome === "late") this.opts.log.warn({ running: this.firstPolls.size }, "stopping with first polls still running; their leases will expire");
  }

  private async tick(): Promise<number> {
    await this.runDue();
    const next = await this.leases.nextDue();
    if (next === null) return this.opts.maxSleepMs;
    return Math.max(250, Math.min(this.opts.maxSleepMs, (next - nowSeconds()) * 1000));
  }
}
