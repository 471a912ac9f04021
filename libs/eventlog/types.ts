// What the event log takes and gives: an event to record, an event as consumers and readers see it, a consumer.
import type { Subscription } from "@trove/bus";
import type { UnitOfWork } from "@trove/db";

/** An event to record in the transaction of the change it announces. */
export interface EventInput {
  /** Who records it ("items", "notes"): the change stream reads one stream's events by account. */
  stream: string;
  /** Dot-separated tokens ("items.event.item.created", "tag.deleted"); consumers filter on it. */
  subject: string;
  accountId: string;
  /** What it is about (an item id, a note id, a slug), for `exists`. */
  key?: string | null;
  /** Unix ms; now when left out. */
  at?: number;
  /** The event id (UUIDv7 when left out): the JetStream message id and every consumer's idempotency key. */
  id?: string;
  /** The message as consumers receive it, without `position` (the log adds it). */
  data: Record<string, unknown>;
}

/** A recorded event with its position: what readers page through and consumers are handed. */
export interface LoggedEvent {
  id: string;
  /** Place in the database's log, increasing in commit order. */
  position: number;
  stream: string;
  subject: string;
  accountId: string;
  key: string | null;
  at: number;
  /** The recorded data with `position` added: the message every consumer receives, on either path. */
  data: Record<string, unknown>;
}

export interface ConsumeOptions {
  /** Durable name: the consumer keeps its place under it across restarts (a JetStream durable of the same name). */
  name: string;
  /** NATS-style subject filter: `items.event.>`, `tag.deleted`. */
  filter: string;
  /** The most events handed over at once (default 100). */
  batch?: number;
  /** How long a batch may take before it counts as failed and is handed over again (default 30 s). */
  ackWaitMs?: number;
  /** The wait before a failed batch is tried again, by attempt (the last one repeats); a fifth of it is random. */
  retryDelaysMs?: number[];
}

/**
 * Does the consumer's work for a batch and resolves once that work has committed; the events are acknowledged only
 * then. A throw hands the same events over again later: every handler must be idempotent (at least once).
 */
export type BatchHandler = (events: LoggedEvent[]) => Promise<void>;

/** What a service uses: record in a unit of work, read positioned pages, consume from a durable position. */
export interface Events {
  /** Records one event in the unit of work; after its commit the relay and this process's consumers are woken. */
  record(uow: UnitOfWork, event: EventInput): Promise<string>;
  /** Records many events in the unit of work, in order. */
  recordMany(uow: UnitOfWork, events: EventInput[]): Promise<string[]>;
  /** Gives positions to what has committed so far (a reader calls it first to read its own writes). */
  assignPositions(): Promise<void>;
  /** The account's events of a stream after a position, oldest first. */
  page(stream: string, accountId: string, afterPosition: number, limit: number, opts?: { subjectPrefix?: string }): Promise<LoggedEvent[]>;
  /** The position just before the account's first event of the stream at or after a time (ms): a walk starts after it. */
  positionBefore(stream: string, accountId: string, atMs: number): Promise<number>;
  /** The account's last position in the stream (0 before any event). */
  head(stream: string, accountId: string): Promise<number>;
  /** True when the account has an event with this subject about this key. */
  exists(accountId: string, subject: string, key: string): Promise<boolean>;
  /** Hands events matching the filter to the handler in batches, from the consumer's stored position. */
  consume(opts: ConsumeOptions, handler: BatchHandler): Promise<Subscription>;
  /** Per consumer started through this handle: events it has yet to acknowledge. */
  lag(): Promise<Record<string, number>>;
}

/** The columns a logged event is read from. */
export interface EventRow {
  position: number | string;
  id: string;
  stream: string;
  subject: string;
  account_id: string;
  key: string | null;
  at: number | string;
  data: Record<string, unknown>;
}

export const eventColumns = ["position", "id", "stream", "subject", "account_id", "key", "at", "data"] as const;

export function loggedEventOf(row: EventRow): LoggedEvent {
  const position = Number(row.position);
  return {
    id: row.id,
    position,
    stream: row.stream,
    subject: row.subject,
    accountId: row.account_id,
    key: row.key,
    at: Number(row.at),
    data: { ...row.data, position },
  };
}
