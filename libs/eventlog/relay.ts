// The relay (NATS only: in process, consumers read the log itself): publishes positioned events to JetStream in
// position order, message id = event id (JetStream dedupes a republish after a crash), and marks them published in
// the same transaction that held the publisher's lock, so one process publishes at a time and any live process
// finishes what a dead one committed. Woken after each commit that recorded events, every second otherwise, and
// after half a second when another process publishes.
import type { EventStream } from "@trove/bus";
import { nextTurn } from "@trove/db";
import { Wakeup } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { sql, type Kysely } from "kysely";
import { headersOf } from "./envelope.ts";
import { assignPositions } from "./positions.ts";
import { eventColumns, loggedEventOf, type EventRow } from "./types.ts";

// Advisory lock key (per database) of the one publisher; the assigner of positions has its own.
const publishLock = 7_361_012;
const publishBatch = 500;
const idleMs = 1_000;
const busyRetryMs = 500;
/** Batches the last pass at a stop publishes at most: a long backlog is left to the next start (or another replica's relay) rather than holding the stop. */
const lastPassBatches = 10;

export class Relay {
  private readonly wakeup: Wakeup;
  private stopping = false;

  constructor(
    private readonly db: Kysely<any>,
    private readonly bus: EventStream,
    private readonly log: Logger,
  ) {
    this.wakeup = new Wakeup(() => this.run(), { log, what: "event relay publishing" });
  }

  start(): void {
    this.wakeup.poke();
  }

  /** Events were committed: publish now (or once more after the run in progress). */
  poke(): void {
    this.wakeup.poke();
  }

  /**
   * Ends the loop after the run in progress. With `flush`, one last pass publishes what has committed (JetStream
   * keeps it for consumers that are gone now); what is left stays in the log for the next start.
   */
  async stop(opts: { flush: boolean }): Promise<void> {
    this.stopping = true;
    await this.wakeup.stop();
    if (!opts.flush) return;
    try {
      await this.run(lastPassBatches);
    } catch (err) {
      this.log.warn({ err }, "the event relay's last pass failed; the next start publishes what is left");
    }
  }

  /** Publishes the backlog; while stopping, at most `maxBatches` batches of it. */
  private async run(maxBatches = Infinity): Promise<number> {
    await assignPositions(this.db);
    for (let done = 1; ; done++) {
      const n = await this.publishBatch();
      // Another process is publishing; look again soon in case it stops before reaching these events.
      if (n === -1) return busyRetryMs;
      if (n < publishBatch) return idleMs;
      // A stop waits for the batch in hand only, then for the bounded last pass.
      if (done >= maxBatches || (this.stopping && maxBatches === Infinity)) return idleMs;
      // A turn for whatever waits (on PGlite, every request) between batches of a long backlog.
      await nextTurn();
    }
  }

  /** Publishes the oldest positioned, unpublished events; -1 when another process holds the publisher's lock. */
  private async publishBatch(): Promise<number> {
    const waiting = await this.db
      .selectFrom("eventlog.events")
      .select("position")
      .where("published_at", "is", null)
      .where("position", "is not", null)
      .limit(1)
      .executeTakeFirst();
    if (!waiting) return 0;
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${publishLock}) as ok`.execute(trx);
      if (!rows[0]?.ok) return -1;
      const batch = (
        (await trx
          .selectFrom("eventlog.events")
          .select(eventColumns)
          .where("published_at", "is", null)
          .where("position", "is not", null)
          .orderBy("position")
          .limit(publishBatch)
          .execute()) as EventRow[]
      ).map(loggedEventOf);
      if (batch.length === 0) return 0;
      // Started in order on one connection, so the stream keeps the log's order; all must be acknowledged.
      await Promise.all(batch.map((e) => this.bus.publish(e.subject, e.data, { id: e.id, headers: headersOf(e) })));
      await trx
        .updateTable("eventlog.events")
        .set({ published_at: Date.now() })
        .where("published_at", "is", null)
        .where("position", ">=", batch[0]!.position)
        .where("position", "<=", batch.at(-1)!.position)
        .execute();
      return batch.length;
    });
  }
}
