// Every Trove metric, named `trove_<what>_<unit>` (docs/metrics.md says what each means). Labels are bounded
// sets only: route templates, subjects, queue names, outcome codes; never an id, an address or a raw path.
import { Counter, Histogram } from "prom-client";
import { registry, SampledGauge } from "./registry.ts";

const registers = [registry];

// ---- HTTP (gateway) -------------------------------------------------------------------------------------------

export const httpRequestDuration = new Histogram({
  name: "trove_http_request_duration_seconds",
  help: "HTTP requests the gateway answered, by method, route template and status, and how long each took.",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

// ---- Bus ------------------------------------------------------------------------------------------------------

export const busRequestDuration = new Histogram({
  name: "trove_bus_request_duration_seconds",
  help: "Bus requests this process made, by subject and outcome (ok or the error code), and how long the reply took.",
  labelNames: ["subject", "outcome"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
  registers,
});

// ---- Event log ------------------------------------------------------------------------------------------------

export const eventConsumerLag = new SampledGauge({
  name: "trove_event_consumer_lag_events",
  help: "Events an event-log consumer of this process has yet to handle (on NATS: the JetStream consumer's pending and unacknowledged messages plus what the relay has yet to publish).",
  labelNames: ["consumer"] as const,
});

export const eventLogPosition = new SampledGauge({
  name: "trove_eventlog_position",
  help: "The latest position given to an event of each stream of the event log.",
  labelNames: ["stream"] as const,
});

// ---- Work queues ----------------------------------------------------------------------------------------------

export const jobQueueDepth = new SampledGauge({
  name: "trove_job_queue_depth",
  help: "Jobs of each work queue this process registered, by state: queued (waiting, due or not), due (waiting and due now), running.",
  labelNames: ["queue", "state"] as const,
});

export const jobClaims = new Counter({
  name: "trove_job_claims_total",
  help: "Jobs this process claimed to run, by queue.",
  labelNames: ["queue"] as const,
  registers,
});

export const jobCompletions = new Counter({
  name: "trove_job_completions_total",
  help: "Jobs this process ran to completion, by queue.",
  labelNames: ["queue"] as const,
  registers,
});

export const jobFailures = new Counter({
  name: "trove_job_failures_total",
  help: "Job runs that failed, by queue; final is true when the job failed for good, false when it runs again later.",
  labelNames: ["queue", "final"] as const,
  registers,
});

// ---- Webhooks -------------------------------------------------------------------------------------------------

export const webhookAttempts = new Counter({
  name: "trove_webhook_attempts_total",
  help: "Webhook delivery attempts made, by outcome (success, or the failure code: http_status, timeout, connect, dns, network, redirect, url_not_allowed) and attempt number.",
  labelNames: ["outcome", "attempt"] as const,
  registers,
});

export const webhookAttemptDuration = new Histogram({
  name: "trove_webhook_attempt_duration_seconds",
  help: "How long webhook delivery attempts took, by outcome.",
  labelNames: ["outcome"] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const webhookDeliveries = new Counter({
  name: "trove_webhook_deliveries_total",
  help: "Webhook deliveries that ended, by outcome: succeeded, or failed (attempts used up, endpoint disabled or deleted, interrupted).",
  labelNames: ["outcome"] as const,
  registers,
});

// ---- Sources --------------------------------------------------------------------------------------------------

export const sourcePollDuration = new Histogram({
  name: "trove_source_poll_duration_seconds",
  help: "Source polls recorded, by source type and outcome (ok, failed, not_polled), and how long each took.",
  labelNames: ["type", "outcome"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers,
});

// ---- Extraction and embedding ---------------------------------------------------------------------------------

export const extractionDuration = new Histogram({
  name: "trove_extraction_duration_seconds",
  help: "Page extractions on the worker pool, by input kind (html, text) and outcome (ok or the extraction error), from hand-over to result (waiting for a free worker included).",
  labelNames: ["kind", "outcome"] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
  registers,
});

export const embeddingDuration = new Histogram({
  name: "trove_embedding_duration_seconds",
  help: "Embedding tasks (one batch of texts each) on the worker pool, by outcome (ok or the embedding error), from hand-over to result.",
  labelNames: ["outcome"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers,
});

export const workerPoolTasks = new SampledGauge({
  name: "trove_worker_pool_tasks",
  help: "Tasks on this process's worker threads, by pool (tasks: extraction and the other parsing; embed: the embedding model's thread) and state: running (a worker has it) or queued (waiting for one).",
  labelNames: ["pool", "state"] as const,
});

/** Seconds since `started` (a performance.now() reading). */
export const secondsSince = (started: number): number => (performance.now() - started) / 1000;
