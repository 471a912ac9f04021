// An outbox publisher: events written in the same transaction as the change they announce are published after
// the commit, at least once (the event id dedupes repeats), and removed from the outbox once the bus took them.
// What a crash or a bus outage left behind goes out on the next poke or the next start.
import type { Bus } from "@trove/bus";
import type { Logger } from "@trove/log";
import { Pump } from "./pump.ts";

/** The outbox table of one kind of event, as its publisher sees it. */
export interface OutboxSource<E extends { id: string }> {
  /** The oldest events not yet published, of every account. */
  pending(limit: number): Promise<E[]>;
  /** Removes (or marks) events the bus has taken. */
  published(ids: string[]): Promise<void>;
}

const batch = 100;

export class OutboxPublisher<E extends { id: string }> {
  private readonly pump: Pump;

  constructor(
    private readonly source: OutboxSource<E>,
    private readonly bus: Bus,
    private readonly subjectOf: (e: E) => string,
    opts: { log: Logger; what: string },
  ) {
    this.pump = new Pump(() => this.publish(), { log: opts.log, what: opts.what });
  }

  /** Sends what an earlier run left behind. */
  start(): void {
    this.pump.poke();
  }

  /** Events were committed: publish now (or once more after the run in progress). */
  poke(): void {
    this.pump.poke();
  }

  stop(): Promise<void> {
    return this.pump.stop();
  }

  private async publish(): Promise<null> {
    for (;;) {
      const events = await this.source.pending(batch);
      if (events.length === 0) break;
      await Promise.all(events.map((e) => this.bus.publish(this.subjectOf(e), e, { id: e.id })));
      await this.source.published(events.map((e) => e.id));
      if (events.length < batch || this.pump.stopped) break;
    }
    return null;
  }
}
