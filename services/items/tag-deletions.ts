// Publishes tag.deleted at least once for every deleted tag: the announcement is written with the deletion (the
// outbox), sent after the commit, and removed once the bus took it. What could not be sent (bus down, a crash
// right after the commit) goes out on the next try or the next start. The event id dedupes repeats.
import type { Bus } from "@trove/bus";
import { tagDeletedSubject } from "@trove/contracts";
import { Pump } from "@trove/host";
import type { Logger } from "@trove/log";
import type { TagDeletionsRepository } from "./tag-deletions.repository.ts";

const batch = 100;

export class TagDeletionPublisher {
  private readonly pump: Pump;

  constructor(
    private readonly repo: TagDeletionsRepository,
    private readonly bus: Bus,
    log: Logger,
  ) {
    this.pump = new Pump(() => this.publish(), { log, what: "publishing tag.deleted" });
  }

  /** Sends what an earlier run left behind. */
  start() {
    this.pump.poke();
  }

  /** A deletion was committed: publish now (or once more after the run in progress). */
  poke() {
    this.pump.poke();
  }

  stop() {
    return this.pump.stop();
  }

  private async publish(): Promise<null> {
    for (;;) {
      const events = await this.repo.pending(batch);
      if (events.length === 0) break;
      await Promise.all(events.map((e) => this.bus.publish(tagDeletedSubject, e, { id: e.id })));
      await this.repo.published(events.map((e) => e.id));
      if (events.length < batch || this.pump.stopped) break;
    }
    return null;
  }
}
