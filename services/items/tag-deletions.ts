// Publishes tag.deleted at least once for every deleted tag: the announcement is written with the deletion (the
// outbox), sent after the commit, and removed once the bus took it. What could not be sent (bus down, a crash
// right after the commit) goes out on the next try or the next start. The event id dedupes repeats.
import type { Bus } from "@trove/bus";
import { tagDeletedSubject, type TagDeletedEvent } from "@trove/contracts";
import { OutboxPublisher } from "@trove/host";
import type { Logger } from "@trove/log";
import type { TagDeletionsRepository } from "./tag-deletions.repository.ts";

export class TagDeletionPublisher extends OutboxPublisher<TagDeletedEvent> {
  constructor(repo: TagDeletionsRepository, bus: Bus, log: Logger) {
    super(repo, bus, () => tagDeletedSubject, { log, what: "publishing tag.deleted" });
  }
}
