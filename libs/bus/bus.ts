// The bus interface shared by the NATS and in-process implementations (requests, broadcasts), the reply envelope
// both use, and the event stream only NATS has.
import { AppError, toAppError, type ErrorCode, type ErrorDetails } from "@trove/errors";
import type { Logger } from "@trove/log";
import { busRequestDuration, secondsSince } from "@trove/metrics";

export type Headers = Record<string, string>;

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Headers;
}

export interface RequestMeta {
  subject: string;
  headers: Headers;
}

export type RequestHandler = (payload: unknown, meta: RequestMeta) => unknown | Promise<unknown>;

export interface Subscription {
  stop(): Promise<void>;
}

export interface PublishResult {
  /** True when an event with the same id was already published (dedupe window). */
  duplicate: boolean;
}

export interface EventDelivery<T = unknown> {
  id: string;
  subject: string;
  data: T;
  /** 1 on first delivery, counting up on each redelivery. */
  attempt: number;
}

export interface ConsumeOptions {
  /** Durable consumer name; it keeps its position across restarts. */
  durable: string;
  /** Event subject filter (NATS wildcards `*` and `>` allowed). */
  filter: string;
  /** How long a delivery may take before it is redelivered. */
  ackWaitMs?: number;
  /** Attempts before a failing event is given up on; -1 never gives up. */
  maxDeliver?: number;
  /** Delay before redelivering a failed event, by attempt (last value repeats). */
  retryDelaysMs?: number[];
  /**
   * At most this many deliveries of this consumer are being handled at once in a process (default 16), so a burst
   * of events never starts more work than that; the rest wait their turn. An event waiting for its redelivery
   * holds no place.
   */
  maxInFlight?: number;
}

/** Resolves to acknowledge; throws to have the event redelivered after a delay. */
export type EventHandler = (event: EventDelivery) => Promise<void>;

/** Hears one broadcast; what it throws is logged, never sent back. */
export type BroadcastHandler = (data: unknown, subject: string) => void | Promise<void>;

export interface Bus {
  readonly kind: "memory" | "nats";
  /** Request-reply with a deadline; error replies are thrown as AppError with their stable code. */
  request(subject: string, payload: unknown, opts?: RequestOptions): Promise<unknown>;
  /** Like request, but answers the reply's JSON text untouched (the gateway passes it through). */
  requestJson(subject: string, payload: unknown, opts?: RequestOptions): Promise<string>;
  /** Answers requests on `subject`; one of the serving instances takes each request. */
  serve(subject: string, handler: RequestHandler): Subscription;
  /**
   * A stopping process takes no more requests from other processes (on NATS the other replicas get them), while
   * its own requests to the subjects it served are still answered here, so its work under way can finish; each
   * subject's own stop() ends that. In process there is no other process: nothing to do.
   */
  stopServing(): Promise<void>;
  /**
   * Sends a message to every listener of `subject` in every process (no queue group, nothing stored): for news
   * each replica must act on, like a revoked key. Resolves once the bus has taken the message on (NATS: the
   * server has it, so every connected listener is sent it; in-process: every listener has run).
   */
  broadcast(subject: string, data: unknown): Promise<void>;
  /** Hears every broadcast on `subject` (NATS wildcards `*` and `>` allowed), in this process. */
  listen(subject: string, handler: BroadcastHandler): Subscription;
  /** Runs each time the bus is connected again after losing its connection: broadcasts sent meanwhile were missed. */
  onReconnect(listener: () => void): Subscription;
  /** True when the bus can carry messages right now. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A stored event stream (JetStream; NATS only): what the event log's relay publishes to and its consumers read.
 * In process there is none: consumers read the event log's table (libs/eventlog).
 */
export interface EventStream {
  /** Publishes an event at least once; the event id dedupes repeats (within the stream's duplicate window). */
  publish(subject: string, data: unknown, opts: { id: string; headers?: Headers }): Promise<PublishResult>;
  /** Delivers events to a durable consumer with explicit acknowledgement and redelivery. */
  consume(opts: ConsumeOptions, handler: EventHandler): Promise<Subscription>;
}

export const defaultRequestTimeoutMs = 30_000;
export const defaultRetryDelaysMs = [1_000, 5_000, 30_000, 120_000];
export const defaultMaxInFlight = 16;

/** Runs a request and counts it in trove_bus_request_duration_seconds by subject and outcome (ok, or its error code). */
export async function measured(subject: string, request: () => Promise<string>): Promise<string> {
  const started = performance.now();
  let outcome = "ok";
  try {
    return await request();
  } catch (err) {
    outcome = err instanceof AppError ? err.code : "internal_error";
    throw err;
  } finally {
    busRequestDuration.observe({ subject, outcome }, secondsSince(started));
  }
}

/** A handler's outcome as it travels: the reply's JSON text, or an error with its stable code. */
export type Reply = { ok: true; json: string } | { ok: false; error: WireError };

export interface WireError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

/** Header that marks an error reply; its body is the JSON of {message, details}. */
export const errorHeader = "trove-error";

/** Answers a request with a handler of this process: the JSON round-trip, the deadline and the error codes of a bus trip. */
export async function answerHere(handler: RequestHandler, subject: string, payload: unknown, opts: RequestOptions, log: Logger): Promise<string> {
  const meta = { subject, headers: { ...opts.headers } };
  const input = JSON.parse(encodeJson(payload));
  const timeoutMs = opts.timeoutMs ?? defaultRequestTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("timeout", `no reply on ${subject} within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const reply = await Promise.race([runHandler(handler, input, meta, log), deadline]);
    if (reply.ok) return reply.json;
    throw errorFromWire(reply.error.code, encodeJson({ message: reply.error.message, details: reply.error.details }));
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a handler and turns its outcome, thrown or async, into a reply. */
export async function runHandler(handler: RequestHandler, payload: unknown, meta: RequestMeta, log: Logger): Promise<Reply> {
  try {
    return { ok: true, json: encodeJson(await handler(payload, meta)) };
  } catch (err) {
    const appErr = toAppError(err);
    if (appErr.code === "internal_error") {
      log.error({ err, subject: meta.subject, reqId: meta.headers["trove-request-id"] }, "handler failed");
    }
    return { ok: false, error: { code: appErr.code, message: appErr.message, details: appErr.details } };
  }
}

export function errorFromWire(code: string, body: string): AppError {
  let parsed: { message?: string; details?: ErrorDetails } = {};
  try {
    parsed = JSON.parse(body);
  } catch {
    // An unreadable error body still carries its code.
  }
  return toAppError({ code, message: parsed.message ?? code, details: parsed.details });
}

/** NATS subject matching: `*` is one token, `>` the rest. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split(".");
  const s = subject.split(".");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === ">") return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== "*" && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

export function retryDelay(delays: number[], attempt: number): number {
  return delays[Math.min(attempt - 1, delays.length - 1)] ?? 1_000;
}

/** JSON in and out, in both implementations, so both see the same values. */
export const encodeJson = (value: unknown): string => JSON.stringify(value ?? null);
