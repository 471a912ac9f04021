// The outbox relay: gives committed item events their log positions and publishes them on the bus (JetStream in
// the distributed deployment) in position order, message id = event id, so a republish after a crash is
// deduplicated. Woken after each commit that wrote events, and by a slow timer that catches up after an outage
// or events another replica wrote.
import type { Bus } from "@trove/bus";
import { itemEventSubject, type ItemEventMessage } from "@trove/contracts";
import type { Logger } from "@trove/log";
import type { EventLogRepository, LoggedEvent } from "./event-log.repository.ts";

const publishBatch = 500;
const idleMs = 1_000;
const busyRetryMs = 500;
const maxBackoffMs = 30_000;

export class EventRelay {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly log: EventLogRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  start() {
    this.poke();
  }

  /** Something was committed: run now (or once more after the run in progress). */
  poke() {
    if (this.stopped) return;
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

  /** Events committed so far get positions (the change stream calls this first, to read its own writes). */
  async assign(): Promise<void> {
    if (await this.log.hasUnpositioned()) await this.log.assignPositions();
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run() {
    this.again = false;
    let next = idleMs;
    try {
      await this.assign();
      for (;;) {
        const n = await this.log.publishBatch(publishBatch, (events) => this.publish(events), Date.now());
        if (n === -1) {
          // Another replica is publishing; look again soon in case it stops before reaching our events.
          next = busyRetryMs;
          break;
        }
        if (n < publishBatch || this.stopped) break;
      }
      this.failures = 0;
    } catch (err) {
      this.failures++;
      next = Math.min(maxBackoffMs, 250 * 2 ** this.failures);
      this.logger.warn({ err, retryInMs: next }, "event relay could not publish; will retry");
    }
    if (!this.stopped && !this.again) this.timer = setTimeout(() => this.poke(), next);
  }

  private async publish(events: LoggedEvent[]) {
    // Started in order on one connection, so the stream keeps the log's order; all must be acknowledged.
    await Promise.all(events.map((e) => this.bus.publish(itemEventSubject(e.type), messageOf(e), { id: e.id })));
  }
}

export function messageOf(e: LoggedEvent): ItemEventMessage {
  return {
    id: e.id,
    position: Number(e.position),
    accountId: e.accountId,
    type: e.type,
    itemId: e.itemId,
    changedAt: Number(e.changedAt),
    beforeScope: e.beforeScope,
    afterScope: e.afterScope,
    payload: e.payload,
  };
}
