export { Wakeup, backoffMs, type WakeupOptions, type WakeupStep, type WakeupTimers } from "./wakeup.ts";
export {
  defineQueue,
  failNow,
  retryAt,
  interruptedReason,
  FailNow,
  LeaseLost,
  RetryAt,
  type BackoffOptions,
  type Job,
  type JobContext,
  type QueueDefinition,
} from "./queue.ts";
export { retryDelayMs } from "./backoff.ts";
export type { JobState, QueueCounts, QueueDepth } from "./repository.ts";
export { QueueSet, type Claim, type EnqueueOptions, type JobStatus, type QueueSetOptions, type WakeBus } from "./worker.ts";
export { Jobs, migrateQueue, queueMigrations, type JobsOptions } from "./jobs.ts";
