// The outbox relay: gives committed item events their log positions and publishes them on the bus (JetStream in
// the distributed deployment) in position order, message id = event id, so a republish after a crash is
// deduplicated. Woken after each commit that wrote events, and by a slow timer that catches up after an outage
// or events another replica wrote.
import type { Bus } from "@trove/bus";
import { itemEventSubject, type ItemEventMessage } from "@trove/contracts";
import { Pump } from "@trove/host";
import type { Logger } from "@trove/log";
import type { EventLogRepository, LoggedEvent } from "./event-log.repository.ts";

const publishBatch = 500;
const idleMs = 1_000;
const busyRetryMs = 500;

export class EventRelay {
  private readonly pump: Pump;

  constructor(
    private readonly log: EventLogRepository,
    private readonly bus: Bus,
    logger: Logger,
  ) {
    this.pump = new Pump(() => this.run(), { log: logger, what: "event relay publishing" });
  }

  start() {
    this.pump.poke();
  }

  /** Something was committed: run now (or once more after the run in progress). */
  poke() {
    this.pump.poke();
  }

  /** Events committed so far get positions (the change stream calls this first, to read its own writes). */
  async assign(): Promise<void> {
    if (await this.log.hasUnpositioned()) await this.log.assignPositions();
  }

  stop() {
    return this.pump.stop();
  }

  /** Positions, then publishes in batches; the slow timer (idleMs) catches events another replica wrote. */
  private async run(): Promise<number> {
    await this.assign();
    for (;;) {
      const n = await this.log.publishBatch(publishBatch, (events) => this.publish(events), Date.now());
      // Another replica is publishing; look again soon in case it stops before reaching our events.
      if (n === -1) return busyRetryMs;
      if (n < publishBatch || this.pump.stopped) return idleMs;
    }
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
