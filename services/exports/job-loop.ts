// The replica's job scheduler: takes queued jobs (and ones whose replica stopped mid-run: their lease ran out) up to
// a few at a time, keeps their leases alive while they run, fails a job that keeps being interrupted, and deletes
// export files past their time. Woken at once by a job created here; otherwise it looks every `tickMs`.
import { randomUUID } from "node:crypto";
import type { BlobStore } from "@trove/blobs";
import { nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import { PoolClosedError } from "@trove/workers";
import type { ExportRunner } from "./export-runner.ts";
import { ImportFailed, type ImportRunner } from "./import-runner.ts";
import type { JobRow, JobsRepository } from "./jobs.repository.ts";
import { Lease, LeaseLost } from "./lease.ts";

/** A lease's length; renewed every third of it. A replica gone for this long has its jobs taken up elsewhere. */
export const leaseMs = 30_000;
/** Runs a job may start before it is failed as one that cannot finish (each restart or crash mid-run is one). */
export const maxAttempts = 3;
/** Errors that say a service is away for now, not that the job is wrong: the job is tried again later. */
const transient = new Set(["service_unavailable", "timeout"]);

export class JobLoop {
  private readonly owner = randomUUID();
  private readonly running = new Map<string, { lease: Lease; done: Promise<void> }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  private lastSweep = 0;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly blobs: BlobStore,
    private readonly runners: { export: ExportRunner; import: ImportRunner },
    private readonly opts: { tickMs: number; workers: number },
    private readonly log: Logger,
  ) {}

  start(): void {
    this.poke();
  }

  /** Looks for work now (a job was just created). */
  poke = (): void => {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    void this.tick();
  };

  private async tick(): Promise<void> {
    this.ticking = true;
    clearTimeout(this.timer);
    try {
      do {
        this.again = false;
        while (!this.stopped && this.running.size < this.opts.workers) {
          const job = await this.jobs.claim(this.owner, Date.now(), leaseMs);
          if (!job) break;
          this.launch(job);
        }
        await this.sweep();
      } while (this.again && !this.stopped);
    } catch (err) {
      this.log.error({ err }, "job scheduling failed");
    } finally {
      this.ticking = false;
      if (!this.stopped) this.timer = setTimeout(this.poke, this.opts.tickMs);
    }
  }

  private launch(job: JobRow): void {
    const lease = new Lease(this.owner);
    const log = this.log.child({ jobId: job.id, kind: job.kind, attempt: job.attempts });
    const renew = setInterval(() => {
      this.jobs.renew(job.id, this.owner, Date.now() + leaseMs).then(
        (held) => {
          if (!held) lease.lost = true;
        },
        (err) => log.warn({ err }, "could not renew a job's lease"),
      );
    }, leaseMs / 3);
    const done = this.execute(job, lease, log).finally(() => {
      clearInterval(renew);
      this.running.delete(job.id);
      // A place is free: the next queued job starts now rather than at the next tick.
      this.poke();
    });
    this.running.set(job.id, { lease, done });
  }

  private async execute(job: JobRow, lease: Lease, log: Logger): Promise<void> {
    if (job.attempts > maxAttempts) {
      await this.jobs.fail(job.id, this.owner, `interrupted ${maxAttempts} times before it could finish`, nowSeconds());
      if (job.kind === "import" && job.blob) await this.blobs.delete(job.blob).catch(() => {});
      log.warn("job failed: interrupted too often");
      return;
    }
    log.info(job.attempts > 1 ? "job resumed" : "job started");
    try {
      if (job.kind === "export") await this.runners.export.run(job, lease);
      else await this.runners.import.run(job, lease);
      log.info("job completed");
    } catch (err) {
      if (err instanceof LeaseLost || err instanceof PoolClosedError || (err instanceof AppError && transient.has(err.code)) || this.stopped) {
        // Not the job's fault: it is taken up again (here or by another replica) while attempts are left.
        log.warn({ err }, "job interrupted");
        await this.jobs.release(job.id, this.owner).catch(() => {});
        return;
      }
      const reason = err instanceof ImportFailed || err instanceof AppError ? err.message : "internal error";
      if (!(err instanceof ImportFailed || err instanceof AppError)) log.error({ err }, "job failed");
      else log.warn({ reason }, "job failed");
      await this.jobs.fail(job.id, this.owner, reason, nowSeconds());
      // A failed import's upload is of no more use (a completed one's is removed by its runner).
      if (job.kind === "import" && job.blob) await this.blobs.delete(job.blob).catch(() => {});
    }
  }

  /** Deletes export files past their time, at most once a minute. */
  private async sweep(): Promise<void> {
    if (Date.now() - this.lastSweep < 60_000) return;
    this.lastSweep = Date.now();
    for (const { id, blob } of await this.jobs.expired(nowSeconds(), 100)) {
      await this.blobs.delete(blob);
      await this.jobs.forgetBlob(id);
      this.log.info({ jobId: id }, "expired export file deleted");
    }
  }

  /** Stops taking jobs; running ones stop at their next step and give their leases back for the next replica. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const r of this.running.values()) r.lease.lost = true;
    await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), Bun.sleep(10_000)]);
  }
}
