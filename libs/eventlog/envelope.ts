// An event on JetStream: the body is the message consumers receive (the recorded data with `position`), and
// what the log knows besides travels in headers, so a consumer reading JetStream gets the same LoggedEvent as
// one reading the table.
import type { Headers } from "@trove/bus";
import type { LoggedEvent } from "./types.ts";

const h = {
  position: "trove-event-position",
  stream: "trove-event-stream",
  account: "trove-event-account",
  key: "trove-event-key",
  at: "trove-event-at",
} as const;

/** The headers an event is published with. */
export function headersOf(e: LoggedEvent): Headers {
  const out: Headers = {
    [h.position]: String(e.position),
    [h.stream]: e.stream,
    [h.account]: encodeURIComponent(e.accountId),
    [h.at]: String(e.at),
  };
  if (e.key !== null) out[h.key] = encodeURIComponent(e.key);
  return out;
}

/**
 * The event a JetStream message carries. A message without the headers was published before the log existed
 * (an item event of the old relay): what it lacks is taken from its body, where those messages had it.
 */
export function eventOfMessage(msg: { id: string; subject: string; data: unknown; headers: Headers }): LoggedEvent {
  const data = (msg.data !== null && typeof msg.data === "object" ? msg.data : { value: msg.data }) as Record<string, unknown>;
  const hd = msg.headers;
  const num = (v: unknown) => (typeof v === "number" ? v : Number(v ?? 0) || 0);
  const position = hd[h.position] !== undefined ? num(hd[h.position]) : num(data.position);
  return {
    id: msg.id,
    position,
    stream: hd[h.stream] ?? msg.subject.split(".")[0]!,
    subject: msg.subject,
    accountId: hd[h.account] !== undefined ? decodeURIComponent(hd[h.account]!) : String(data.accountId ?? ""),
    key: hd[h.key] !== undefined ? decodeURIComponent(hd[h.key]!) : null,
    at: hd[h.at] !== undefined ? num(hd[h.at]) : num(data.changedAt),
    data: { ...data, position },
  };
}
