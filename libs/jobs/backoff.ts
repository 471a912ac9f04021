// The wait before a failed job runs again: the queue's own schedule when it has one, else exponential backoff with
// jitter (the same curve as the Wakeup's), so jobs that failed together (a database restart) come back spread out.
import type { QueueDefinition } from "./queue.ts";
import { backoffMs } from "./wakeup.ts";

/** The wait after run `attempt` (from 1) failed with `error`, or null when the queue says to fail now. */
export function retryDelayMs(def: Pick<QueueDefinition<any>, "backoff" | "schedule">, attempt: number, error: unknown, random: () => number = Math.random): number | null {
  if (def.schedule) return def.schedule(attempt, error);
  const b = def.backoff ?? {};
  return backoffMs(attempt, { firstBackoffMs: b.firstMs ?? 1_000, maxBackoffMs: b.maxMs ?? 600_000, jitter: b.jitter ?? 0.2 }, random);
}
