// Publishes tag.deleted at least once for every deleted tag: the announcement is written with the deletion (the
// outbox), sent after the commit, and removed once the bus took it. What could not be sent (bus down, a crash
// right after the commit) goes out on the next try or the next start. The event id dedupes repeats.
import type { Bus } from "@trove/bus";
import { tagDeletedSubject } from "@trove/contracts";
import type { Logger } from "@trove/log";
import type { TagDeletionsRepository } from "./tag-deletions.repository.ts";

const batch = 100;
const maxBackoffMs = 30_000;

export class TagDeletionPublisher {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly repo: TagDeletionsRepository,
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  /** Sends what an earlier run left behind. */
  start() {
    this.poke();
  }

  /** A deletion was committed: publish now (or once more after the run in progress). */
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

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run() {
    this.again = false;
    try {
      for (;;) {
        const events = await this.repo.pending(batch);
        if (events.length === 0) break;
        await Promise.all(events.map((e) => this.bus.publish(tagDeletedSubject, e, { id: e.id })));
        await this.repo.published(events.map((e) => e.id));
        if (events.length < batch || this.stopped) break;
      }
      this.failures = 0;
    } catch (err) {
      this.failures++;
      const retryInMs = Math.min(maxBackoffMs, 250 * 2 ** this.failures);
      this.log.warn({ err, retryInMs }, "could not publish tag.deleted; will retry");
      if (!this.stopped) this.timer = setTimeout(() => this.poke(), retryInMs);
    }
  }
}
