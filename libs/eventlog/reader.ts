// A consumer that reads the log itself (the in-process deployment): its position is a row in eventlog.consumers,
// it hands the events after it to the handler in batches, and moves the position on only once the handler has
// resolved (its work committed). A stop waits for the batch in hand; a crash anywhere replays it: at least once.
// No transaction is open while the handler runs (PGlite has one connection, which the handler needs).
//
// Failures: the same batch is tried again after the retry delay; after three failed tries its events run one at
// a time, so a bad event holds up only itself and the events after it (order within a consumer is kept, nothing
// is skipped). A lease (owner, lease_until) lets one reader of a name run at a time when several processes share
// a database; it is renewed while a batch runs.
import { Wakeup } from "@trove/jobs";
import type { Logger } from "@trove/log";
import type { Kysely } from "kysely";
import { matches } from "./filters.ts";
import { assignPositions } from "./positions.ts";
import { eventColumns, loggedEventOf, type BatchHandler, type EventRow, type LoggedEvent } from "./types.ts";

export interface ReaderOptions {
  name: string;
  filter: string;
  batch: number;
  ackWaitMs: number;
  retryDelaysMs: number[];
  /** This process's reader id (the lease owner). */
  owner: string;
  leaseMs?: number;
  /** The wait between looks when nothing pokes (events written by another process). */
  idleMs?: number;
  /** Rows read per look; rows the filter leaves out are passed over without a handler call. */
  scan?: number;
  random?: () => number;
}

/** Failed tries of a batch before its events run one at a time. */
const splitAfter = 3;

export class LogReader {
  private readonly wakeup: Wakeup;
  private readonly leaseMs: number;
  private readonly idleMs: number;
  private readonly scan: number;
  private ensured = false;
  /** Our stored position and lease, as last written by us. */
  private position = 0;
  private leaseUntil = 0;
  /** Failed tries of the batch at the head, and when the next may start. */
  private failures = 0;
  private retryAt = 0;
  /** While the position is below this, one event at a time (the events of a batch that kept failing). */
  private splitUntil = 0;

  constructor(
    private readonly db: Kysely<any>,
    private readonly handler: BatchHandler,
    private readonly opts: ReaderOptions,
    private readonly log: Logger,
  ) {
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.idleMs = opts.idleMs ?? 1_000;
    this.scan = opts.scan ?? 2_000;
    this.wakeup = new Wakeup(() => this.step(), { log, what: `event consumer ${opts.name}` });
  }

  start(): void {
    this.wakeup.poke();
  }

  /** Events were committed: look now (or once more after the batch in hand). */
  poke(): void {
    this.wakeup.poke();
  }

  /** Lets the batch in hand finish (or fail at its acknowledgement window), starts no other, gives the lease up. */
  async stop(): Promise<void> {
    await this.wakeup.stop();
    await this.db
      .updateTable("eventlog.consumers")
      .set({ owner: null, lease_until: null })
      .where("name", "=", this.opts.name)
      .where("owner", "=", this.opts.owner)
      .execute()
      .catch((err) => this.log.warn({ err, consumer: this.opts.name }, "could not give the consumer's lease up; it expires"));
  }

  /** Events after the stored position (matching or not, until it passes them) and events not positioned yet. */
  async lag(): Promise<number> {
    const row = await this.db.selectFrom("eventlog.consumers").select("position").where("name", "=", this.opts.name).executeTakeFirst();
    const after = Number(row?.position ?? 0);
    const counts = await this.db
      .selectNoFrom((eb) => [
        eb.selectFrom("eventlog.events").select((e) => e.fn.countAll<number>().as("n")).where("position", ">", after).as("behind"),
        eb.selectFrom("eventlog.events").select((e) => e.fn.countAll<number>().as("n")).where("position", "is", null).as("unpositioned"),
      ])
      .executeTakeFirstOrThrow();
    return Number(counts.behind) + Number(counts.unpositioned);
  }

  private async step(): Promise<number | null> {
    const wait = this.retryAt - Date.now();
    if (wait > 0) return wait;
    if (!this.ensured) {
      await this.db
        .insertInto("eventlog.consumers")
        .values({ name: this.opts.name, position: 0, updated_at: Date.now() })
        .onConflict((oc) => oc.column("name").doNothing())
        .execute();
      this.ensured = true;
    }
    if (!(await this.claim())) return this.idleMs;
    await assignPositions(this.db);
    const rows = (await this.db
      .selectFrom("eventlog.events")
      .select(eventColumns)
      .where("position", ">", this.position)
      .orderBy("position")
      .limit(this.scan)
      .execute()) as EventRow[];
    if (rows.length === 0) return this.idleMs;

    const limit = this.position < this.splitUntil ? 1 : this.opts.batch;
    const batch: LoggedEvent[] = [];
    let through = this.position;
    let full = false;
    for (const row of rows) {
      if (matches(this.opts.filter, row.subject)) {
        if (batch.length === limit) {
          full = true;
          break;
        }
        batch.push(loggedEventOf(row));
      }
      through = Number(row.position);
    }
    const more = full || rows.length === this.scan;
    if (batch.length > 0) {
      const err = await this.handle(batch);
      if (err !== undefined) return this.failed(batch, err);
      this.failures = 0;
    }
    await this.advance(through);
    return more ? 0 : this.idleMs;
  }

  /** Runs the handler within the acknowledgement window, keeping the lease; answers what it threw, if it did. */
  private async handle(batch: LoggedEvent[]): Promise<unknown> {
    const renew = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.leaseMs / 3)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ackWait = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`batch not done within ${this.opts.ackWaitMs} ms`)), this.opts.ackWaitMs);
    });
    try {
      await Promise.race([this.handler(batch), ackWait]);
      return undefined;
    } catch (err) {
      return err ?? new Error("the handler threw nothing");
    } finally {
      clearTimeout(timer);
      clearInterval(renew);
    }
  }

  private failed(batch: LoggedEvent[], err: unknown): number {
    this.failures++;
    if (this.failures >= splitAfter && batch.length > 1) this.splitUntil = batch.at(-1)!.position;
    const delays = this.opts.retryDelaysMs;
    const nominal = delays[Math.min(this.failures - 1, delays.length - 1)] ?? 1_000;
    const delay = Math.round(nominal * (1 - 0.2 * (this.opts.random ?? Math.random)()));
    this.retryAt = Date.now() + delay;
    this.log.warn(
      { err, consumer: this.opts.name, attempt: this.failures, events: batch.length, firstEventId: batch[0]!.id, retryInMs: delay },
      "event batch failed; will retry",
    );
    return delay;
  }

  /** True when this reader holds the consumer's lease (taking it when free or expired). */
  private async claim(): Promise<boolean> {
    const now = Date.now();
    // Held with time to spare: no statement needed.
    if (this.leaseUntil - now > this.leaseMs / 2) return true;
    const row = await this.db
      .updateTable("eventlog.consumers")
      .set({ owner: this.opts.owner, lease_until: now + this.leaseMs })
      .where("name", "=", this.opts.name)
      .where((eb) => eb.or([eb("owner", "is", null), eb("owner", "=", this.opts.owner), eb("lease_until", "<", now)]))
      .returning("position")
      .executeTakeFirst();
    if (!row) {
      this.leaseUntil = 0;
      return false;
    }
    this.leaseUntil = now + this.leaseMs;
    this.position = Number(row.position);
    return true;
  }

  private async renew(): Promise<void> {
    const now = Date.now();
    try {
      const res = await this.db
        .updateTable("eventlog.consumers")
        .set({ lease_until: now + this.leaseMs })
        .where("name", "=", this.opts.name)
        .where("owner", "=", this.opts.owner)
        .executeTakeFirst();
      this.leaseUntil = Number(res.numUpdatedRows) > 0 ? now + this.leaseMs : 0;
    } catch (err) {
      this.log.warn({ err, consumer: this.opts.name }, "could not renew the consumer's lease");
    }
  }

  private async advance(through: number): Promise<void> {
    if (through <= this.position) return;
    const res = await this.db
      .updateTable("eventlog.consumers")
      .set({ position: through, updated_at: Date.now() })
      .where("name", "=", this.opts.name)
      .where("owner", "=", this.opts.owner)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      // Another reader took the lease over while the batch ran: it hands the batch over again (at least once).
      this.leaseUntil = 0;
      this.log.warn({ consumer: this.opts.name }, "the consumer's lease was taken over; its reader goes on from its own position");
      return;
    }
    this.position = through;
  }
}
