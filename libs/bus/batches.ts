// A JetStream durable consumer that hands messages over in batches: the handler's work for a batch commits once,
// then every message of it is acknowledged; a failed batch is handed back (nak with a delay) and never given up
// on. Messages delivered while a batch runs wait for the next one; the server sends at most `batch` messages that
// are not yet acknowledged (max_ack_pending), so that is also the most a process holds. A long batch tells the
// server it is still working, so the acknowledgement window can stay short and a dead consumer's messages come
// back quickly.
import { nanos } from "@nats-io/nats-core";
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Logger } from "@trove/log";
import { retryDelay, type Headers, type Subscription } from "./bus.ts";

/** The most the server waits for an acknowledgement or a sign of work before it hands a message out again. */
export const serverAckWaitMs = 30_000;

export interface BatchConsumeOptions {
  /** Durable consumer name; it keeps its position across restarts. */
  durable: string;
  /** Event subject filter (NATS wildcards allowed), without the prefix. */
  filter: string;
  /** How long a batch may take before it counts as failed (the server's window is at most serverAckWaitMs). */
  ackWaitMs: number;
  /** The most messages in one batch, and the most delivered and not yet acknowledged. */
  batch: number;
  /** Delay before a failed message comes back, by delivery (the last value repeats); a fifth of it is random. */
  retryDelaysMs: number[];
  /** A message delivered more often than this runs in a batch of its own, so it holds up only itself (default 3). */
  aloneAfter?: number;
  /** Where failed batches are reported (default the bus's logger). */
  log?: Logger;
}

export interface StreamEvent {
  id: string;
  /** Without the prefix. */
  subject: string;
  data: unknown;
  headers: Headers;
  /** 1 on first delivery, counting up on each redelivery. */
  attempt: number;
}

export interface BatchConsumer extends Subscription {
  /** Messages of the filter not yet acknowledged: not delivered yet, or delivered and in hand. */
  pending(): Promise<number>;
}

export interface StreamAccess {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** `<prefix>.events.` */
  subjectPrefix: string;
  ensureStream(): Promise<void>;
  log: Logger;
}

export async function consumeBatches(
  access: StreamAccess,
  opts: BatchConsumeOptions,
  handler: (events: StreamEvent[]) => Promise<void>,
): Promise<BatchConsumer> {
  const { js, jsm, stream } = access;
  const log = opts.log ?? access.log;
  await access.ensureStream();
  // The server's window is short whatever a batch may take: a live consumer renews it (working) while its batch
  // runs, and a dead one's messages come back within it, not after a batch's whole allowance.
  const windowMs = Math.min(opts.ackWaitMs, serverAckWaitMs);
  const settings = { ack_wait: nanos(windowMs), max_deliver: -1, max_ack_pending: opts.batch };
  const exists = await jsm.consumers.info(stream, opts.durable).then(
    () => true,
    () => false,
  );
  if (exists) {
    await jsm.consumers.update(stream, opts.durable, settings);
  } else {
    const config = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: access.subjectPrefix + opts.filter,
      ...settings,
    };
    // Another replica may have made it in between: then it exists, and it gets our settings.
    await jsm.consumers.add(stream, config).catch((err: unknown) =>
      jsm.consumers.update(stream, opts.durable, settings).catch(() => {
        throw err;
      }),
    );
  }
  const consumer = await js.consumers.get(stream, opts.durable);
  const aloneAfter = opts.aloneAfter ?? 3;
  const held: JsMsg[] = [];
  let running: JsMsg[] = [];
  let stopping = false;
  let loop: Promise<void> | null = null;

  const tired = (m: JsMsg) => m.info.deliveryCount > aloneAfter;
  const take = (): JsMsg[] => {
    if (tired(held[0]!)) return held.splice(0, 1);
    let n = 0;
    while (n < held.length && n < opts.batch && !tired(held[n]!)) n++;
    return held.splice(0, n);
  };

  const runBatch = async (msgs: JsMsg[]) => {
    const events: StreamEvent[] = [];
    const readable: JsMsg[] = [];
    for (const m of msgs) {
      try {
        events.push({
          id: m.headers?.get("Nats-Msg-Id") || String(m.seq),
          subject: m.subject.slice(access.subjectPrefix.length),
          data: m.json(),
          headers: headersOf(m),
          attempt: m.info.deliveryCount,
        });
        readable.push(m);
      } catch (err) {
        // Not JSON: no handler can ever take it, so it is the one message given up on.
        log.error({ err, durable: opts.durable, seq: m.seq }, "an unreadable event was dropped");
        m.term();
      }
    }
    if (events.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ackWait = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`batch not done within ${opts.ackWaitMs} ms`)), opts.ackWaitMs);
    });
    try {
      await Promise.race([handler(events), ackWait]);
      for (const m of readable) m.ack();
    } catch (err) {
      const attempt = Math.max(...events.map((e) => e.attempt));
      const delay = Math.round(retryDelay(opts.retryDelaysMs, attempt) * (1 - 0.2 * Math.random()));
      log.warn({ err, durable: opts.durable, attempt, events: events.length, firstEventId: events[0]!.id, retryInMs: delay }, "event batch failed; will retry");
      for (const m of readable) m.nak(delay);
    } finally {
      clearTimeout(timer);
    }
  };

  const drain = async () => {
    while (held.length > 0 && !stopping) {
      running = take();
      await runBatch(running);
      running = [];
    }
  };
  const kick = () => {
    if (loop || stopping) return;
    loop = drain().finally(() => {
      loop = null;
      if (held.length > 0) kick();
    });
  };

  // Everything in hand (running or waiting its turn) stays ours while the window runs.
  const working = setInterval(() => {
    for (const m of [...running, ...held]) m.working();
  }, Math.max(100, Math.floor(windowMs / 3)));

  const messages = await consumer.consume({
    max_messages: opts.batch,
    callback: (m) => {
      if (stopping) return m.nak();
      held.push(m);
      kick();
    },
  });

  return {
    stop: async () => {
      stopping = true;
      await messages.close().catch(() => {});
      await loop;
      clearInterval(working);
      // Delivered but never started: straight back to the server for another consumer (or the next start).
      for (const m of held.splice(0)) m.nak();
    },
    pending: async () => {
      const info = await jsm.consumers.info(stream, opts.durable);
      return info.num_pending + info.num_ack_pending;
    },
  };
}

function headersOf(m: JsMsg): Headers {
  const out: Headers = {};
  if (!m.headers) return out;
  for (const k of m.headers.keys()) {
    const v = m.headers.get(k);
    if (v) out[k.toLowerCase()] = v;
  }
  return out;
}
