// In-process bus: the same semantics as the NATS one (JSON round-trip, deadlines, dedupe, durable consumers)
// for the embedded deployment, where every service runs in one process.
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import {
  type BroadcastHandler,
  type Bus,
  type ConsumeOptions,
  type EventHandler,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
  defaultMaxInFlight,
  defaultRequestTimeoutMs,
  defaultRetryDelaysMs,
  encodeJson,
  retryDelay,
  runHandler,
  subjectMatches,
  errorFromWire,
} from "./bus.ts";

interface StoredEvent {
  seq: number;
  id: string;
  subject: string;
  json: string;
  at: number;
}

interface Consumer {
  opts: Required<ConsumeOptions>;
  handler: EventHandler | undefined;
  /** Next stream sequence to consider. */
  cursor: number;
  attempts: Map<number, number>;
  /** Deliveries started and not yet settled (nor past their ack wait): at most opts.maxInFlight. */
  inFlight: number;
  /** Failed events whose retry delay has passed, waiting for a free place; they go before new events. */
  due: StoredEvent[];
  timers: Set<ReturnType<typeof setTimeout>>;
  /** A pump is due in the next turn of the event loop. */
  pumpScheduled: boolean;
}

const dedupeWindowMs = 120_000;
/**
 * Past this many kept events the oldest go, but never one a running consumer has not reached yet: a consumer
 * working through a burst (bounded by maxInFlight) would otherwise lose the events it had not started.
 */
const maxKeptEvents = 100_000;

export class MemoryBus implements Bus {
  readonly kind = "memory" as const;
  private handlers = new Map<string, RequestHandler[]>();
  private rr = new Map<string, number>();
  private events: StoredEvent[] = [];
  /** Sequence number of events[0]. */
  private base = 0;
  private seenIds = new Map<string, number>();
  private consumers = new Map<string, Consumer>();
  private listeners = new Set<{ filter: string; handler: BroadcastHandler }>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  async request(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<unknown> {
    return JSON.parse(await this.requestJson(subject, payload, opts));
  }

  async requestJson(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<string> {
    if (this.closed) throw new AppError("service_unavailable", "bus closed");
    const list = this.handlers.get(subject);
    if (!list || list.length === 0) throw new AppError("service_unavailable", `no service answers ${subject}`);
    const i = (this.rr.get(subject) ?? 0) % list.length;
    this.rr.set(subject, i + 1);
    const handler = list[i]!;
    const meta = { subject, headers: { ...opts.headers } };
    const input = JSON.parse(encodeJson(payload));
    const timeoutMs = opts.timeoutMs ?? defaultRequestTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError("timeout", `no reply on ${subject} within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const reply = await Promise.race([runHandler(handler, input, meta, this.log), deadline]);
      if (reply.ok) return reply.json;
      throw errorFromWire(reply.error.code, encodeJson({ message: reply.error.message, details: reply.error.details }));
    } finally {
      clearTimeout(timer);
    }
  }

  serve(subject: string, handler: RequestHandler): Subscription {
    const list = this.handlers.get(subject) ?? [];
    list.push(handler);
    this.handlers.set(subject, list);
    return {
      stop: async () => {
        const current = this.handlers.get(subject) ?? [];
        this.handlers.set(subject, current.filter((h) => h !== handler));
      },
    };
  }

  async publish(subject: string, data: unknown, opts: { id: string }) {
    if (this.closed) throw new AppError("service_unavailable", "bus closed");
    const now = Date.now();
    const seen = this.seenIds.get(opts.id);
    if (seen !== undefined && now - seen < dedupeWindowMs) return { duplicate: true };
    // Taken out and put back at the end, so the map stays in the order ids were seen and pruning stops early.
    this.seenIds.delete(opts.id);
    this.seenIds.set(opts.id, now);
    this.pruneSeen(now);
    this.events.push({ seq: this.base + this.events.length, id: opts.id, subject, json: encodeJson(data), at: now });
    if (this.events.length > maxKeptEvents) this.trim();
    for (const c of this.consumers.values()) this.pump(c);
    return { duplicate: false };
  }

  async consume(opts: ConsumeOptions, handler: EventHandler): Promise<Subscription> {
    const full: Required<ConsumeOptions> = {
      ackWaitMs: 30_000,
      maxDeliver: 5,
      retryDelaysMs: defaultRetryDelaysMs,
      maxInFlight: defaultMaxInFlight,
      ...opts,
    };
    // A durable keeps its cursor when it is consumed again after a stop, like a JetStream durable.
    const existing = this.consumers.get(opts.durable);
    const consumer: Consumer = existing ?? {
      opts: full,
      handler,
      cursor: 0,
      attempts: new Map(),
      inFlight: 0,
      due: [],
      timers: new Set(),
      pumpScheduled: false,
    };
    consumer.handler = handler;
    consumer.opts = full;
    this.consumers.set(opts.durable, consumer);
    this.pump(consumer);
    return {
      stop: async () => {
        consumer.handler = undefined;
        for (const t of consumer.timers) clearTimeout(t);
        consumer.timers.clear();
        consumer.due = [];
      },
    };
  }

  async broadcast(subject: string, data: unknown): Promise<void> {
    if (this.closed) throw new AppError("service_unavailable", "bus closed");
    const json = encodeJson(data);
    // Every listener, each with its own copy, and all of them done before the sender goes on.
    await Promise.all(
      [...this.listeners]
        .filter((l) => subjectMatches(l.filter, subject))
        .map(async (l) => {
          try {
            await l.handler(JSON.parse(json), subject);
          } catch (err) {
            this.log.error({ err, subject }, "broadcast listener failed");
          }
        }),
    );
  }

  listen(subject: string, handler: BroadcastHandler): Subscription {
    const listener = { filter: subject, handler };
    this.listeners.add(listener);
    return {
      stop: async () => {
        this.listeners.delete(listener);
      },
    };
  }

  /** The in-process bus is never disconnected. */
  onReconnect(): Subscription {
    return { stop: async () => {} };
  }

  async healthy() {
    return !this.closed;
  }

  async close() {
    this.closed = true;
    for (const c of this.consumers.values()) {
      c.handler = undefined;
      for (const t of c.timers) clearTimeout(t);
      c.due = [];
    }
    this.handlers.clear();
    this.listeners.clear();
  }

  /** Starts deliveries while the consumer has free places: due retries first, then new events in order. */
  private pump(c: Consumer) {
    c.cursor = Math.max(c.cursor, this.base);
    while (c.handler && !this.closed && c.inFlight < c.opts.maxInFlight) {
      const retry = c.due.shift();
      if (retry) {
        this.deliver(c, retry);
        continue;
      }
      if (c.cursor >= this.base + this.events.length) return;
      const ev = this.events[c.cursor++ - this.base]!;
      if (subjectMatches(c.opts.filter, ev.subject)) this.deliver(c, ev);
    }
  }

  private deliver(c: Consumer, ev: StoredEvent) {
    const handler = c.handler;
    if (!handler || this.closed) return;
    const attempt = (c.attempts.get(ev.seq) ?? 0) + 1;
    c.attempts.set(ev.seq, attempt);
    c.inFlight++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ackWait = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("ack wait exceeded")), c.opts.ackWaitMs);
    });
    // A handler that throws at once still settles through the race (one path for every outcome).
    const handled = (async () => handler({ id: ev.id, subject: ev.subject, data: JSON.parse(ev.json), attempt }))();
    Promise.race([handled, ackWait])
      .then(() => {
        c.attempts.delete(ev.seq);
      })
      .catch((err) => {
        if (c.opts.maxDeliver > 0 && attempt >= c.opts.maxDeliver) {
          this.log.warn({ err, eventId: ev.id, durable: c.opts.durable, attempt }, "event given up after max deliveries");
          c.attempts.delete(ev.seq);
          return;
        }
        // The wait holds no place: the retry queues for one when its delay is over.
        const t = setTimeout(() => {
          c.timers.delete(t);
          c.due.push(ev);
          this.pump(c);
        }, retryDelay(c.opts.retryDelaysMs, attempt));
        c.timers.add(t);
      })
      .finally(() => {
        clearTimeout(timer);
        c.inFlight--;
        this.pumpSoon(c);
      });
  }

  /**
   * The next deliveries start in a later turn of the event loop, not in the promise jobs of the one that ended:
   * in the embedded deployment a handler's statements answer through promise jobs, so a chain of deliveries
   * started from those jobs would keep timers and sockets (HTTP requests) waiting until the whole backlog is done.
   */
  private pumpSoon(c: Consumer) {
    if (c.pumpScheduled) return;
    c.pumpScheduled = true;
    setImmediate(() => {
      c.pumpScheduled = false;
      this.pump(c);
    });
  }

  /** Drops the oldest tenth of the kept events, or as many of them as every running consumer has passed. */
  private trim() {
    let floor = this.base + this.events.length;
    for (const c of this.consumers.values()) if (c.handler) floor = Math.min(floor, Math.max(c.cursor, this.base));
    const drop = Math.min(maxKeptEvents / 10, floor - this.base);
    if (drop <= 0) return;
    this.events.splice(0, drop);
    this.base += drop;
  }

  /** Forgets ids older than the dedupe window: the oldest first, up to the first one still inside it. */
  private pruneSeen(now: number) {
    for (const [id, at] of this.seenIds) {
      if (now - at < dedupeWindowMs) return;
      this.seenIds.delete(id);
    }
  }
}
