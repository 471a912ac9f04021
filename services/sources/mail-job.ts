// The `mail` queue: one job per received message, enqueued with its spool row before the SMTP answer. A run makes
// the message an item of each inbox it was taken for; our own faults (the items service or the database away) are
// tried again for about half a day, as a sender's queue would have kept trying had we deferred the message; after
// the last try, or at once for a message that cannot be read, each inbox lists it as failed with why.
import { defineQueue, type QueueDefinition } from "@trove/jobs";
import type { MailIntake } from "./mail-intake.ts";
import { mailQueueName, type MailJob } from "./queue-names.ts";

/** Tries: 2 s doubling to an hour apart, so 24 runs span about thirteen hours. */
const maxAttempts = 24;

export function mailQueue(intake: MailIntake): QueueDefinition<MailJob> {
  return defineQueue<MailJob>({
    name: mailQueueName,
    maxAttempts,
    backoff: { firstMs: 2_000, maxMs: 3_600_000, jitter: 0.2 },
    // One message at a time per process: mail is read and added in the order it came, so of two copies of one
    // message the later is the one listed as the duplicate.
    concurrency: 1,
    run: (_job, ctx) => intake.process(ctx),
    failed: (uow, job, reason) => intake.failed(uow, job.payload.spoolId, reason),
  });
}
