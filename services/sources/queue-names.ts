// The sources service's queues by name, and what their jobs carry: known to the code that enqueues (the runs, the
// services, the mail intake) and to the definitions that run them (poll-job.ts, mail-job.ts).
import type { UnitOfWork } from "@trove/db";
import type { QueueSet } from "@trove/jobs";
import type { SourceRow } from "./sources.repository.ts";

export const pollQueueName = "source-poll";
export const mailQueueName = "mail";

export interface PollPayload {
  sourceId: string;
}

export interface MailJob {
  /** The spool row, which is also the job's id. */
  spoolId: string;
}

/** In the unit of work that gave a syncing source its next poll time: its job, due then (an open one only moves sooner). */
export async function schedulePoll(jobs: Pick<QueueSet, "enqueue">, uow: UnitOfWork, row: SourceRow): Promise<void> {
  if (row.status !== "syncing" || row.next_poll_at === null) return;
  await jobs.enqueue<PollPayload>(uow, pollQueueName, { sourceId: row.id }, { key: row.id, runAt: row.next_poll_at * 1000, accountId: row.account_id });
}
