// NATS bus: core request-reply (queue group per subject) for operations, core publish/subscribe (no queue group)
// for broadcasts, JetStream for events.
// Works with nats-server 2.9: one filter subject per consumer, no 2.10+ stream features.
import {
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  errors as natsErrors,
  headers as natsHeaders,
  nanos,
} from "@nats-io/nats-core";
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JsMsg,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { Objm, setSha256Backend, type ObjectStore } from "@nats-io/obj";

// The object store hashes every chunk; its default is a JavaScript SHA-256 (36 MiB/s here, about a sixth of an
// export's CPU), node:crypto's runs near 1 GiB/s. Process-wide, and the same digest either way.
setSha256Backend("native");
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import {
  type BroadcastHandler,
  type Bus,
  type EventStream,
  type ConsumeOptions,
  type EventHandler,
  type Headers,
  type Reply,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
  defaultMaxInFlight,
  defaultRequestTimeoutMs,
  defaultRetryDelaysMs,
  encodeJson,
  retryDelay,
  runHandler,
  answerHere,
  errorFromWire,
  errorHeader,
  measured,
} from "./bus.ts";
import { consumeBatches, type BatchConsumeOptions, type BatchConsumer, type StreamEvent } from "./batches.ts";
import { connectNats, type NatsAccess } from "./connect.ts";

/** A subject served by this process. */
interface Served {
  subject: string;
  handler: RequestHandler;
  drain(): Promise<void>;
}

const refHeader = "trove-payload-ref";
const encodingHeader = "trove-encoding";
const queueGroup = "trove";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface NatsBusOptions {
  url: string;
  /** Namespace for subjects, the event stream and the payload bucket, so runs never collide. */
  prefix: string;
  log: Logger;
  name?: string;
  /** Credentials and TLS (NATS_USER/NATS_PASSWORD or NATS_CREDS, NATS_TLS_*); unset: none. */
  access?: NatsAccess;
}

export class NatsBus implements Bus, EventStream {
  readonly kind = "nats" as const;
  private js: JetStreamClient;
  private payloads: Promise<ObjectStore> | undefined;
  private readonly reconnectListeners = new Set<() => void>();
  private watchingStatus = false;
  private streamReady: Promise<void> | undefined;
  /** Payloads above this many bytes travel through the object store. */
  private readonly spillBytes: number;
  /** The subjects this process serves, with their handlers and subscriptions. */
  private readonly served = new Set<Served>();
  /** After stopServing: requests to a subject served here are answered here. */
  private servingStopped = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly opts: NatsBusOptions,
  ) {
    this.js = jetstream(nc);
    this.spillBytes = Math.max(1024, nc.info!.max_payload - 64 * 1024);
  }

  static async connect(opts: NatsBusOptions): Promise<NatsBus> {
    const nc = await connectNats(opts.url, opts.access, {
      name: opts.name ?? "trove",
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // An Error per request for async stack traces costs ~4 % of gateway CPU; our errors carry codes instead.
      noAsyncTraces: true,
    });
    logServerErrors(nc, opts.log);
    const jsm = await jetstreamManager(nc);
    return new NatsBus(nc, jsm, opts);
  }

  private rpcSubject(subject: string) {
    return `${this.opts.prefix}.rpc.${subject}`;
  }

  private eventSubject(subject: string) {
    return `${this.opts.prefix}.events.${subject}`;
  }

  private broadcastSubject(subject: string) {
    return `${this.opts.prefix}.broadcast.${subject}`;
  }

  private get streamName() {
    return `${this.opts.prefix}_events`;
  }

  async request(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<unknown> {
    return JSON.parse(await this.requestJson(subject, payload, opts));
  }

  requestJson(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<string> {
    return measured(subject, () => this.send(subject, payload, opts));
  }

  private async send(subject: string, payload: unknown, opts: RequestOptions): Promise<string> {
    if (this.servingStopped) {
      const here = [...this.served].find((s) => s.subject === subject);
      if (here) return answerHere(here.handler, subject, payload, opts, this.opts.log);
    }
    const timeout = opts.timeoutMs ?? defaultRequestTimeoutMs;
    const { data, hdrs } = await this.pack(encodeJson(payload), opts.headers ?? {});
    let reply: Msg;
    try {
      reply = await this.soon(() => this.nc.request(this.rpcSubject(subject), data, { timeout, headers: hdrs }));
    } catch (err) {
      if (err instanceof natsErrors.NoRespondersError || (err as Error).message?.includes("503")) {
        throw new AppError("service_unavailable", `no service answers ${subject}`);
      }
      if (err instanceof natsErrors.TimeoutError || (err as Error).name === "TimeoutError") {
        throw new AppError("timeout", `no reply on ${subject} within ${timeout} ms`);
      }
      throw new AppError("service_unavailable", `bus request failed: ${(err as Error).message}`);
    }
    const code = reply.headers?.get(errorHeader);
    const body = await this.unpack(reply);
    if (code) throw errorFromWire(code, body);
    return body;
  }

  serve(subject: string, handler: RequestHandler): Subscription {
    const sub = this.nc.subscribe(this.rpcSubject(subject), {
      queue: queueGroup,
      callback: (err, msg) => {
        if (err) return;
        void this.answer(subject, msg, handler);
      },
    });
    // Drained once, whether by stopServing or by the stop: requests already taken are answered.
    let drained: Promise<void> | undefined;
    const entry: Served = { subject, handler, drain: () => (drained ??= sub.drain()) };
    this.served.add(entry);
    return {
      stop: async () => {
        this.served.delete(entry);
        await entry.drain();
      },
    };
  }

  async stopServing(): Promise<void> {
    this.servingStopped = true;
    await Promise.all([...this.served].map((s) => s.drain().catch((err) => this.opts.log.warn({ err, subject: s.subject }, "could not drain a subscription"))));
  }

  private async answer(subject: string, msg: Msg, handler: RequestHandler) {
    let reply: Reply;
    const headers = readHeaders(msg.headers);
    try {
      const payload = JSON.parse(await this.unpack(msg));
      reply = await runHandler(handler, payload, { subject, headers }, this.opts.log);
    } catch (err) {
      this.opts.log.error({ err, subject }, "could not read request");
      reply = { ok: false, error: { code: "internal_error", message: "could not read request" } };
    }
    // Success: the data's JSON alone (the gateway can pass it through); failure: the code in a header. A reply
    // that cannot be sent (the connection is draining at stop, the object store is gone) is logged: the caller
    // gets its timeout, and the process does not die of an unhandled rejection.
    try {
      const { data, hdrs } = reply.ok
        ? await this.pack(reply.json, {})
        : await this.pack(encodeJson({ message: reply.error.message, details: reply.error.details }), { [errorHeader]: reply.error.code });
      await this.soon(() => msg.respond(data, { headers: hdrs }));
    } catch (err) {
      this.opts.log.warn({ err, subject }, "could not send a reply");
    }
  }

  private outgoing: (() => void)[] = [];

  // Messages produced in one turn of the event loop (replies to results from several database sockets, requests
  // for several HTTP requests) leave together: nats.js writes what one microtask queued as one socket write, and
  // socket writes were 40 % of a service's CPU.
  private soon<T>(send: () => T): Promise<Awaited<T>> {
    return new Promise((resolve, reject) => {
      const run = () => {
        try {
          Promise.resolve(send()).then(resolve, reject);
        } catch (err) {
          reject(err);
        }
      };
      if (this.outgoing.push(run) > 1) return;
      setImmediate(() => {
        const batch = this.outgoing;
        this.outgoing = [];
        for (const r of batch) r();
      });
    });
  }

  /**
   * Encodes a JSON text. One too large for a message is compressed (zstd: a page of JSON shrinks about 5-10 times
   * in a few ms, where a trip through the object store costs tens); if it is still too large it goes to the object
   * store and a reference travels instead.
   */
  private async pack(json: string, headers: Headers): Promise<{ data: Uint8Array; hdrs: MsgHdrs }> {
    const hdrs = natsHeaders();
    for (const [k, v] of Object.entries(headers)) hdrs.set(k, v);
    let bytes: Uint8Array = encoder.encode(json);
    if (bytes.byteLength <= this.spillBytes) return { data: bytes, hdrs };
    bytes = Bun.zstdCompressSync(bytes, { level: 1 });
    hdrs.set(encodingHeader, "zstd");
    if (bytes.byteLength <= this.spillBytes) return { data: bytes, hdrs };
    const name = crypto.randomUUID();
    const store = await this.payloadStore();
    await store.putBlob({ name }, bytes);
    hdrs.set(refHeader, name);
    return { data: new Uint8Array(), hdrs };
  }

  private async unpack(msg: Msg): Promise<string> {
    const ref = msg.headers?.get(refHeader);
    let bytes = msg.data;
    if (ref) {
      const store = await this.payloadStore();
      const stored = await store.getBlob(ref);
      if (!stored) throw new AppError("internal_error", "large payload missing from the object store");
      void store.delete(ref).catch(() => {});
      bytes = stored;
    }
    if (msg.headers?.get(encodingHeader) === "zstd") bytes = Bun.zstdDecompressSync(bytes);
    return decoder.decode(bytes);
  }

  private payloadStore(): Promise<ObjectStore> {
    // Spilled payloads are read once and deleted; the TTL sweeps any a crashed reader left behind.
    this.payloads ??= new Objm(this.nc).create(`${this.opts.prefix}_payloads`, { ttl: nanos(10 * 60_000) });
    return this.payloads;
  }

  private ensureStream(): Promise<void> {
    this.streamReady ??= (async () => {
      const config = {
        name: this.streamName,
        subjects: [`${this.opts.prefix}.events.>`],
        duplicate_window: nanos(120_000),
      };
      try {
        await this.jsm.streams.info(this.streamName);
      } catch {
        try {
          await this.jsm.streams.add(config);
        } catch (err) {
          // Another process may have created it in between.
          await this.jsm.streams.info(this.streamName).catch(() => {
            throw err;
          });
        }
      }
    })();
    this.streamReady.catch(() => {
      this.streamReady = undefined;
    });
    return this.streamReady;
  }

  async publish(subject: string, data: unknown, opts: { id: string; headers?: Headers }) {
    await this.ensureStream();
    let hdrs: MsgHdrs | undefined;
    if (opts.headers) {
      hdrs = natsHeaders();
      for (const [k, v] of Object.entries(opts.headers)) hdrs.set(k, v);
    }
    const ack = await this.js.publish(this.eventSubject(subject), encodeJson(data), { msgID: opts.id, headers: hdrs });
    return { duplicate: ack.duplicate };
  }

  async consume(opts: ConsumeOptions, handler: EventHandler): Promise<Subscription> {
    await this.ensureStream();
    const ackWaitMs = opts.ackWaitMs ?? 30_000;
    const maxDeliver = opts.maxDeliver ?? 5;
    const delays = opts.retryDelaysMs ?? defaultRetryDelaysMs;
    const prefixLen = `${this.opts.prefix}.events.`.length;
    const consumerConfig = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.eventSubject(opts.filter),
      ack_wait: nanos(ackWaitMs),
      max_deliver: maxDeliver,
    };
    try {
      await this.jsm.consumers.info(this.streamName, opts.durable);
      await this.jsm.consumers.update(this.streamName, opts.durable, {
        ack_wait: consumerConfig.ack_wait,
        max_deliver: maxDeliver,
      });
    } catch {
      await this.jsm.consumers.add(this.streamName, consumerConfig);
    }
    const consumer = await this.js.consumers.get(this.streamName, opts.durable);
    // Up to maxInFlight handlers run at once, and no more are pulled than can run. max_ack_pending stays the
    // server's: JetStream counts a message waiting for its redelivery (nak with a delay) as pending, so a bound
    // of maxInFlight there would let that many failing events hold up every event behind them.
    const maxInFlight = opts.maxInFlight ?? defaultMaxInFlight;
    const messages = await consumer.consume({ max_messages: maxInFlight });
    const handle = async (m: JsMsg) => {
      const attempt = m.info.deliveryCount;
      try {
        await handler({ id: m.headers?.get("Nats-Msg-Id") ?? String(m.seq), subject: m.subject.slice(prefixLen), data: m.json(), attempt });
        m.ack();
      } catch (err) {
        if (maxDeliver > 0 && attempt >= maxDeliver) {
          this.opts.log.warn({ err, durable: opts.durable, seq: m.seq, attempt }, "event given up after max deliveries");
          m.term();
        } else {
          m.nak(retryDelay(delays, attempt));
        }
      }
    };
    const running = new Set<Promise<void>>();
    let stopping = false;
    const loop = (async () => {
      for await (const m of messages) {
        if (running.size >= maxInFlight) await Promise.race(running);
        // Pulled but not started when the consumer stops: handed back for another consumer (or the next start).
        if (stopping) {
          m.nak();
          continue;
        }
        const run: Promise<void> = handle(m).finally(() => running.delete(run));
        running.add(run);
      }
    })();
    return {
      stop: async () => {
        stopping = true;
        await messages.close();
        await loop.catch(() => {});
        await Promise.allSettled(running);
      },
    };
  }

  /** A durable consumer handed batches (the event log's consumers on JetStream); see batches.ts. */
  consumeBatches(opts: BatchConsumeOptions, handler: (events: StreamEvent[]) => Promise<void>): Promise<BatchConsumer> {
    const access = { js: this.js, jsm: this.jsm, stream: this.streamName, subjectPrefix: this.eventSubject(""), log: this.opts.log };
    return consumeBatches({ ...access, ensureStream: () => this.ensureStream() }, opts, handler);
  }

  async broadcast(subject: string, data: unknown): Promise<void> {
    // Core NATS, no queue group: every subscription on every connection gets it. The flush waits for the
    // server's PONG, and the server hands a message to its subscribers before answering a later PING.
    this.nc.publish(this.broadcastSubject(subject), encodeJson(data));
    await this.nc.flush();
  }

  listen(subject: string, handler: BroadcastHandler): Subscription {
    const prefixLen = this.broadcastSubject("").length;
    const sub = this.nc.subscribe(this.broadcastSubject(subject), {
      callback: (err, msg) => {
        if (err) return;
        void (async () => {
          try {
            await handler(JSON.parse(decoder.decode(msg.data)), msg.subject.slice(prefixLen));
          } catch (err) {
            this.opts.log.error({ err, subject: msg.subject }, "broadcast listener failed");
          }
        })();
      },
    });
    return { stop: async () => sub.unsubscribe() };
  }

  onReconnect(listener: () => void): Subscription {
    this.reconnectListeners.add(listener);
    if (!this.watchingStatus) {
      this.watchingStatus = true;
      void (async () => {
        for await (const s of this.nc.status()) {
          if (s.type !== "reconnect") continue;
          for (const l of this.reconnectListeners) {
            try {
              l();
            } catch (err) {
              this.opts.log.error({ err }, "reconnect listener failed");
            }
          }
        }
      })().catch(() => {});
    }
    return { stop: async () => void this.reconnectListeners.delete(listener) };
  }

  async healthy() {
    if (this.nc.isClosed()) return false;
    try {
      await this.nc.flush();
      return true;
    } catch {
      return false;
    }
  }

  async close() {
    if (this.nc.isClosed()) return;
    await this.nc.drain().catch(() => this.nc.close());
  }
}

/**
 * What the server refuses on a live connection (a permissions violation: this user may not publish or subscribe
 * there) reaches the client only as a status; logged, so an operator sees which subject nats.conf denies.
 */
function logServerErrors(nc: NatsConnection, log: Logger): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "error") log.error({ err: s.error }, "NATS refused an operation");
    }
  })().catch(() => {});
}

function readHeaders(h: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!h) return out;
  for (const k of h.keys()) {
    const v = h.get(k);
    if (v) out[k.toLowerCase()] = v;
  }
  return out;
}

/** Deletes the event stream and buckets of a prefix and of prefixes that extend it (tests clean up after their runs). */
export async function dropNatsNamespace(url: string, prefix: string, access?: NatsAccess): Promise<void> {
  const nc = await connectNats(url, access);
  try {
    const jsm = await jetstreamManager(nc);
    const ours = (name: string) => name.startsWith(`${prefix}`) || name.startsWith(`OBJ_${prefix}`);
    const names: string[] = [];
    for await (const s of jsm.streams.list()) if (ours(s.config.name)) names.push(s.config.name);
    for (const stream of names) await jsm.streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
}
