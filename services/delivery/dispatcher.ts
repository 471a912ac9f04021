// Sends due deliveries. Work is claimed from the database with a lease (so several delivery processes share it,
// and a crashed process's claims come back when their lease runs out), at most `perEndpoint` at once to one
// endpoint and `global` at once in all: a slow receiver holds its own slots, never the others'. The dispatcher is
// woken when deliveries are added or an attempt ends, and by one timer set for the next due attempt.
import type { Logger } from "@trove/log";
import type { Resolver } from "@trove/webfetch";
import type { AttemptResult, ClaimedDelivery, DeliveriesRepository } from "./deliveries.repository.ts";
import { nextAttemptAt, parseRetryAfter, type RetryPolicy } from "./schedule.ts";
import { sendAttempt } from "./send.ts";
import { signingSecrets } from "./signing.ts";

export interface DispatcherOptions {
  retry: RetryPolicy;
  disableAfter: number;
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
  /** Attempts in flight to one endpoint. */
  perEndpoint: number;
  /** Attempts in flight in this process. */
  global: number;
  /** Longest sleep without a wake-up: picks up work another process added and then crashed before sending. */
  idleCheckMs: number;
}

export const dispatcherDefaults = { perEndpoint: 16, global: 128, idleCheckMs: 30_000 };

export class Dispatcher {
  private readonly token = Bun.randomUUIDv7();
  private readonly abort = new AbortController();
  private readonly busy = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private again = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private finished: { result: AttemptResult; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly opts: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  /** A lease outlives the longest attempt, so a live dispatcher never loses one it is using. */
  private get leaseMs(): number {
    return this.opts.timeoutMs + 10_000;
  }

  /** Look for due work now (new deliveries, a resumed endpoint, a finished attempt). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    // On the next turn of the event loop: the attempts that end in this one are claimed for together.
    setImmediate(() => void this.run());
  }

  /** Stops claiming, aborts attempts in flight and gives their deliveries back unattempted. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
    await this.writing;
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.fill();
      } while (this.again && !this.stopped);
    } catch (err) {
      // The database may be away for a moment: look again shortly rather than never.
      if (!this.stopped) {
        this.log.warn({ err }, "webhook dispatch failed; retrying in 1 s");
        this.arm(Date.now() + 1_000);
      }
    } finally {
      this.running = false;
    }
  }

  private saturated(): string[] {
    return [...this.busy].filter(([, n]) => n >= this.opts.perEndpoint).map(([id]) => id);
  }

  private async fill(): Promise<void> {
    while (!this.stopped) {
      const free = this.opts.global - this.inFlight.size;
      if (free <= 0) return; // an attempt ending wakes us
      const now = Date.now();
      const claimed = await this.repo.claim({
        now,
        limit: free,
        perEndpoint: this.opts.perEndpoint,
        busy: Object.fromEntries(this.busy),
        leaseUntil: now + this.leaseMs,
        token: this.token,
      });
      if (claimed.length === 0) {
        const due = await this.repo.nextDue(this.saturated());
        this.arm(due ?? now + this.opts.idleCheckMs);
        return;
      }
      const extra: string[] = [];
      for (const d of claimed) {
        if ((this.busy.get(d.endpoint_id) ?? 0) >= this.opts.perEndpoint || this.stopped) extra.push(d.id);
        else this.start(d);
      }
      // Claimed for an endpoint that filled up in this batch: back for the next round.
      await this.repo.release(extra, this.token);
    }
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const wait = Math.min(Math.max(at - Date.now(), 5), this.opts.idleCheckMs);
    this.timer = setTimeout(() => this.wake(), wait);
  }

  private start(d: ClaimedDelivery): void {
    this.busy.set(d.endpoint_id, (this.busy.get(d.endpoint_id) ?? 0) + 1);
    const p = this.attempt(d)
      .catch((err) => this.log.error({ err, deliveryId: d.id }, "a webhook attempt failed"))
      .finally(() => {
        this.inFlight.delete(p);
        const n = (this.busy.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.busy.delete(d.endpoint_id);
        else this.busy.set(d.endpoint_id, n);
        this.wake();
      });
    this.inFlight.add(p);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const outcome = await sendAttempt(d.url, d.id, d.body, signingSecrets(d, startedAt), {
      allowPrivate: this.opts.allowPrivate,
      resolver: this.opts.resolver,
      timeoutMs: this.opts.timeoutMs,
      signal: this.abort.signal,
    });
    if (outcome.aborted) {
      await this.repo.release([d.id], this.token).catch(() => {});
      return;
    }
    const durationMs = Math.round(performance.now() - t0);
    const attempt = d.attempts + 1;
    const endedAt = startedAt + durationMs;
    const retryAfter = outcome.ok ? null : parseRetryAfter(outcome.retryAfter, endedAt);
    // The slot is free once the receiver has answered: the lease keeps the delivery ours until it is written.
    void this.record({
      deliveryId: d.id,
      endpointId: d.endpoint_id,
      leaseToken: this.token,
      attempt,
      startedAt,
      durationMs,
      ok: outcome.ok,
      statusCode: outcome.statusCode,
      error: outcome.error,
      message: outcome.message,
      nextAttemptAt: outcome.ok ? null : nextAttemptAt(this.opts.retry, attempt, endedAt, retryAfter),
      disableAfter: this.opts.disableAfter,
      failuresBefore: d.consecutive_failures,
    }).catch((err) => this.log.error({ err, deliveryId: d.id }, "recording a webhook attempt failed; it is retried when its lease ends"));
  }

  /** Queues a finished attempt for the next batch write; resolves once it is written. */
  private record(result: AttemptResult): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.finished.push({ result, resolve, reject });
      if (!this.writing) this.writing = this.writeBatches();
    });
  }

  // Attempts that finish while a batch is written wait for the next one: one transaction per batch instead of
  // one per attempt (the database, PGlite above all, is what limits deliveries per second).
  private async writeBatches(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0);
      try {
        const { disabled } = await this.repo.recordAttempts(batch.map((b) => b.result));
        for (const endpointId of disabled) this.log.warn({ endpointId }, "webhook endpoint disabled after consecutive failures");
        for (const b of batch) b.resolve();
        // Retries just written may be due before the timer: look again.
        this.wake();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.writing = null;
  }
}
