// In-process bus: the same semantics as the NATS one (JSON round-trip, deadlines, stable error codes, broadcasts)
// for the embedded deployment, where every service runs in one process. It has no event stream: there, consumers
// read the event log's table itself (libs/eventlog), so an event is never held only in memory.
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import {
  type BroadcastHandler,
  type Bus,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
  answerHere,
  encodeJson,
  measured,
  subjectMatches,
} from "./bus.ts";

export class MemoryBus implements Bus {
  readonly kind = "memory" as const;
  private handlers = new Map<string, RequestHandler[]>();
  private rr = new Map<string, number>();
  private listeners = new Set<{ filter: string; handler: BroadcastHandler }>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  async request(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<unknown> {
    return JSON.parse(await this.requestJson(subject, payload, opts));
  }

  requestJson(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<string> {
    return measured(subject, () => this.answer(subject, payload, opts));
  }

  private async answer(subject: string, payload: unknown, opts: RequestOptions): Promise<string> {
    if (this.closed) throw new AppError("service_unavailable", "bus closed");
    const list = this.handlers.get(subject);
    if (!list || list.length === 0) throw new AppError("service_unavailable", `no service answers ${subject}`);
    const i = (this.rr.get(subject) ?? 0) % list.length;
    this.rr.set(subject, i + 1);
    return answerHere(list[i]!, subject, payload, opts, this.log);
  }

  /** Every caller is in this process. */
  async stopServing(): Promise<void> {}

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
    this.handlers.clear();
    this.listeners.clear();
  }
}
