// Each delivery is a job of the `webhook` queue (in `delivery.queue`, with the delivery's id) in its endpoint's
// group: at most 16 attempts under way to one endpoint, counting every replica, and 128 in a process, so a
// receiver that hangs holds only its own endpoint's places. A run makes one attempt: the stored body, freshly
// signed. How it went is written with the job's end, in one transaction (the ends of one turn of the event loop
// share one): a success ends the job; a failure queues it again at the schedule's time (a Retry-After may stretch
// it) or, after the last attempt, fails it; the attempt that disables its endpoint fails the endpoint's other jobs
// with it. Pausing, resuming and disabling an endpoint act on its group.
import DataLoader from "dataloader";
import type { UnitOfWork } from "@trove/db";
import { defineQueue, failNow, LeaseLost, retryAt, type Job, type QueueDefinition, type QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { webhookAttemptDuration, webhookAttempts, webhookDeliveries } from "@trove/metrics";
import type { Resolver } from "@trove/webfetch";
import type { AttemptRecord, DeliveriesRepository, DeliveryStatus, DeliveryTarget } from "./deliveries.repository.ts";
import type { EndpointsRepository } from "./endpoints.repository.ts";
import { maxAttempts, nextAttemptAt, parseRetryAfter, type RetryPolicy } from "./schedule.ts";
import { sendAttempt } from "./send.ts";
import { signingSecrets } from "./signing.ts";

export const webhookQueue = "webhook";
/** Attempts under way to one endpoint at once, in all replicas together. */
export const perEndpoint = 16;
/** Attempts under way in one process. */
export const perProcess = 128;
/**
 * Runs a delivery's job may start: its attempts, and as many again cut short before their attempt was written (a
 * crash, a fault of ours). A job cut short once more than that fails as interrupted.
 */
export const maxRuns = 2 * maxAttempts;

export interface WebhookPayload {
  endpointId: string;
}

export interface WebhookJobOptions {
  retry: RetryPolicy;
  /** Consecutive failed attempts that disable an endpoint. */
  disableAfter: number;
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
}

export interface WebhookJobDeps {
  deliveries: DeliveriesRepository;
  endpoints: EndpointsRepository;
  queue: QueueSet;
  options: WebhookJobOptions;
  log: Logger;
}

/** An attempt made, before its end is written; `failuresBefore` is the endpoint's count when it began. */
type Made = Omit<AttemptRecord, "status" | "nextAttemptAt"> & { failuresBefore: number };

// A failed attempt ends its job through the queue's hooks (queued again, or failed), which are handed the job its
// run was given: the attempt travels to them here.
const made = new WeakMap<Job<WebhookPayload>, Made>();

/** Why a delivery fails when no attempt of its own says: its endpoint's end, or its runs all cut short. */
function failureCode(reason: string): string {
  return reason === "endpoint_disabled" || reason === "endpoint_deleted" ? reason : "interrupted";
}

export function webhookJobs(d: WebhookJobDeps): QueueDefinition<WebhookPayload> {
  const { options } = d;
  // The runs a claim starts begin in one turn of the event loop: their deliveries are read in one query (the
  // database, PGlite above all, is what limits deliveries per second). Never cached: each run reads afresh.
  const targets = new DataLoader<string, DeliveryTarget | undefined>(
    async (ids) => {
      const found = new Map((await d.deliveries.targets([...ids])).map((t) => [t.id, t]));
      return ids.map((id) => found.get(id));
    },
    { cache: false, maxBatchSize: 1_000 },
  );

  // The successes ended in one unit of work (the ends of one turn of the event loop) are written as one statement
  // just before its commit.
  const successes = new WeakMap<UnitOfWork, AttemptRecord[]>();
  const recordSuccess = (uow: UnitOfWork, r: AttemptRecord): void => {
    let batch = successes.get(uow);
    if (!batch) {
      const mine: AttemptRecord[] = [];
      successes.set(uow, (batch = mine));
      uow.beforeCommit(() => d.deliveries.on(uow).record(mine));
    }
    batch.push(r);
  };

  /** The attempt, its delivery's new state and its endpoint's health, in the unit of work that ends the job. */
  const write = async (uow: UnitOfWork, m: Made, status: DeliveryStatus, next: number | null): Promise<void> => {
    const endpoints = d.endpoints.on(uow);
    // The endpoint first, as a delete of it locks it before its deliveries; failure counts in the order attempts end.
    const disabled = !m.ok && (await endpoints.countFailure(m.endpointId, m.startedAt + m.durationMs, options.disableAfter));
    if (m.ok && m.failuresBefore !== 0) await endpoints.countSuccess(m.endpointId);
    const record: AttemptRecord = { ...m, status, nextAttemptAt: next };
    // A failure is written at once: a disable that follows drops the delivery after it.
    if (m.ok) recordSuccess(uow, record);
    else await d.deliveries.on(uow).record([record]);
    if (disabled) {
      // Its other deliveries are dropped with their jobs (this one too, when it was to be tried again).
      await d.queue.failGroup(uow, webhookQueue, m.endpointId, "endpoint_disabled");
      uow.afterCommit(() => d.log.warn({ endpointId: m.endpointId }, "webhook endpoint disabled after consecutive failures"));
    }
    // Counted once written: a unit of work that rolls back (its attempt written again alone) counts nothing.
    uow.afterCommit(() => {
      const outcome = m.ok ? "success" : (m.error ?? "network");
      webhookAttempts.inc({ outcome, attempt: String(m.attempt) });
      webhookAttemptDuration.observe({ outcome }, m.durationMs / 1000);
      if (status !== "pending") webhookDeliveries.inc({ outcome: status });
    });
  };

  return defineQueue<WebhookPayload>({
    name: webhookQueue,
    maxAttempts: maxRuns,
    // Only a fault of ours before an attempt (the database away) comes this way; attempts follow the schedule.
    backoff: { firstMs: 1_000, maxMs: 60_000 },
    concurrency: perProcess,
    group: { of: (p) => p.endpointId, limit: perEndpoint },
    run: async (job, ctx) => {
      const target = await targets.load(job.id);
      // Gone with its endpoint, or ended already: nothing to send.
      if (!target || target.status !== "pending") return;
      // Disabled since it was made (its group was failed with it, unless it was made before the queue kept them).
      if (target.endpoint_status === "disabled") throw failNow("endpoint_disabled");
      const attempt = target.attempts + 1;
      const startedAt = Date.now();
      const t0 = performance.now();
      const outcome = await sendAttempt(target.url, target.id, target.body, signingSecrets(target, startedAt), {
        allowPrivate: options.allowPrivate,
        resolver: options.resolver,
        timeoutMs: options.timeoutMs,
        signal: ctx.signal,
      });
      // Given back (a stop) or taken over: not an attempt; whoever holds the job now makes it.
      if (outcome.aborted) throw ctx.signal.reason ?? new LeaseLost();
      const durationMs = Math.round(performance.now() - t0);
      const m: Made = {
        deliveryId: target.id,
        endpointId: target.endpoint_id,
        attempt,
        startedAt,
        durationMs,
        ok: outcome.ok,
        statusCode: outcome.statusCode,
        error: outcome.error,
        message: outcome.message,
        failuresBefore: target.consecutive_failures,
      };
      if (outcome.ok) return ctx.complete((uow) => write(uow, m, "succeeded", null));
      const endedAt = startedAt + durationMs;
      const next = nextAttemptAt(options.retry, attempt, endedAt, parseRetryAfter(outcome.retryAfter, endedAt));
      made.set(job, m);
      const code = outcome.error ?? "network";
      throw next === null ? failNow(code) : retryAt(next, code);
    },
    requeued: async (uow, job, { runAt }) => {
      const m = made.get(job);
      if (m) await write(uow, m, "pending", runAt);
      // Given back by a stop, or put off by a fault of ours: no attempt to write, only when the next is due.
      else await d.deliveries.on(uow).dueAt(job.id, runAt);
    },
    failed: async (uow, job, reason) => {
      const m = made.get(job);
      if (m) await write(uow, m, "failed", null);
      else {
        if (await d.deliveries.on(uow).fail(job.id, failureCode(reason))) uow.afterCommit(() => webhookDeliveries.inc({ outcome: "failed" }));
      }
    },
  });
}
