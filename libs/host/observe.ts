// The gauges read at each scrape from this host's parts: its event consumers' lag, the event log's positions,
// its work queues' depth and its worker pool's tasks. Added when the host serves its admin server, removed
// before the database closes.
import type { EventLog } from "@trove/eventlog";
import type { Jobs } from "@trove/jobs";
import { eventConsumerLag, eventLogPosition, jobQueueDepth, workerPoolTasks } from "@trove/metrics";
import type { WorkerPool } from "@trove/workers";

export function observeHost(parts: { events: EventLog; jobs: Jobs; workers: WorkerPool; embedWorkers: WorkerPool }): () => void {
  const { events, jobs } = parts;
  const removers = [
    eventConsumerLag.add(async (set) => {
      for (const [consumer, lag] of Object.entries(await events.lag())) set({ consumer }, lag);
    }),
    eventLogPosition.add(async (set) => {
      for (const [stream, position] of Object.entries(await events.positions())) set({ stream }, position);
    }),
    jobQueueDepth.add(async (set) => {
      for (const d of await jobs.depth()) {
        set({ queue: d.queue, state: "queued" }, d.queued);
        set({ queue: d.queue, state: "due" }, d.due);
        set({ queue: d.queue, state: "running" }, d.running);
      }
    }),
    workerPoolTasks.add((set) => {
      for (const [pool, workers] of [["tasks", parts.workers], ["embed", parts.embedWorkers]] as const) {
        const stats = workers.stats();
        set({ pool, state: "running" }, stats.running);
        set({ pool, state: "queued" }, stats.queued);
      }
    }),
  ];
  return () => removers.forEach((remove) => remove());
}
