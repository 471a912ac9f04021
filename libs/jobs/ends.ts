// Writing how jobs end (done, queued again, failed for good) with the lease check, the queue's hooks and a group's
// gap in the same transaction. Ends asked for in one turn of the event loop share one transaction (a burst of
// short jobs, webhook deliveries, costs one commit, not one each); if it fails, each is written again alone, so
// one bad end does not sink the others.
import type { Kysely } from "kysely";
import { inTransaction, type UnitOfWork } from "@trove/db";
import type { Logger } from "@trove/log";
import type { Job, QueueDefinition } from "./queue.ts";
import type { QueueRepository } from "./repository.ts";

/** A run as the writer sees it. */
export interface EndingRun {
  token: string;
  def: QueueDefinition<any>;
  job: Job<any>;
  /** Set once an end is written: nothing more is written for the run. */
  ended: boolean;
  /** The run's clock. */
  now: () => number;
}

export type End =
  | { kind: "done"; fn?: (uow: UnitOfWork) => Promise<unknown> }
  | { kind: "again"; runAt: number; reason: string | null; giveBack: boolean }
  | { kind: "failed"; reason: string };

interface Pending {
  run: EndingRun;
  end: End;
  settle: (held: boolean) => void;
  reject: (err: unknown) => void;
}

export class EndWriter {
  private pending: Pending[] = [];
  private writing: Promise<void> | undefined;
  private flushQueued = false;
  private closed = false;

  constructor(
    private readonly db: Kysely<any>,
    private readonly repo: QueueRepository,
    private readonly log: Logger,
  ) {}

  /** Writes a run's end: true when the run still held its job (so the end is written), false when not. */
  write(run: EndingRun, end: End): Promise<boolean> {
    if (this.closed || run.ended) return Promise.resolve(false);
    return new Promise<boolean>((settle, reject) => {
      this.pending.push({ run, end, settle, reject });
      if (!this.flushQueued) {
        this.flushQueued = true;
        setImmediate(() => {
          this.flushQueued = false;
          void this.flush();
        });
      }
    });
  }

  /** Resolves once every end asked for so far is written (or has failed). */
  async settled(): Promise<void> {
    while (this.writing || this.pending.length > 0 || this.flushQueued) {
      if (this.writing) await this.writing.catch(() => {});
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Ends asked for from now on are not written (the database is about to close). */
  close(): void {
    this.closed = true;
  }

  private async flush(): Promise<void> {
    if (this.writing) return;
    const writing = (async () => {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0);
        try {
          const held = await inTransaction(
            this.db,
            async (uow) => {
              // Every job of the batch that is done is marked so in one statement; their functions run after, in order.
              const marked = await this.markDone(uow, batch);
              const out: boolean[] = [];
              for (const p of batch) out.push(await this.apply(uow, p.run, p.end, marked));
              return out;
            },
            { log: this.log },
          );
          batch.forEach((p, i) => this.done(p, held[i]!));
        } catch (err) {
          if (batch.length === 1) {
            batch[0]!.reject(err);
            continue;
          }
          for (const p of batch) {
            try {
              this.done(p, await inTransaction(this.db, (uow) => this.apply(uow, p.run, p.end), { log: this.log }));
            } catch (e) {
              p.reject(e);
            }
          }
        }
      }
    })();
    this.writing = writing;
    try {
      await writing;
    } finally {
      this.writing = undefined;
    }
  }

  private done(p: Pending, held: boolean): void {
    if (held) p.run.ended = true;
    p.settle(held);
  }

  /** Marks the batch's done jobs done in one statement; answers, by lease token, whether each was still held. */
  private async markDone(uow: UnitOfWork, batch: Pending[]): Promise<Map<string, boolean>> {
    const done = batch.filter((p) => p.end.kind === "done" && !p.run.ended);
    if (done.length < 2) return new Map();
    const held = await this.repo.doneMany(
      uow.db,
      done.map((p) => ({ id: p.run.job.id, token: p.run.token, now: p.run.now() })),
    );
    return new Map(done.map((p) => [p.run.token, held.has(p.run.token)]));
  }

  private async apply(uow: UnitOfWork, run: EndingRun, end: End, marked?: Map<string, boolean>): Promise<boolean> {
    if (run.ended) return false;
    const { job, def, token } = run;
    const now = run.now();
    let held: boolean;
    if (end.kind === "done") {
      held = marked?.get(token) ?? (await this.repo.done(uow.db, job.id, token, now));
      if (held && end.fn) await end.fn(uow);
    } else if (end.kind === "again") {
      held = await this.repo.requeue(uow.db, { id: job.id, token, runAt: end.runAt, reason: end.reason, giveBack: end.giveBack, now });
      if (held && def.requeued) await def.requeued(uow, job, { reason: end.reason, runAt: end.runAt });
    } else {
      held = await this.repo.fail(uow.db, job.id, token, end.reason, now);
      if (held && def.failed) await def.failed(uow, job, end.reason);
    }
    // Politeness to a group's host counts from the end of a job that ran, not from a job given back unrun.
    const gapMs = def.group?.gapMs ?? 0;
    if (held && gapMs > 0 && job.group !== null && !(end.kind === "again" && end.giveBack)) {
      await this.repo.gap(uow.db, def.name, job.group, now + gapMs);
    }
    return held;
  }
}
