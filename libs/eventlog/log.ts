// The event log of one database: services record events in the unit of work of the change they announce, readers
// page through one stream by account, and consumers keep a durable position: on NATS a JetStream durable, fed by
// the relay that publishes the log to JetStream; in process a row of eventlog.consumers, read from the table
// itself (nothing is published to the in-process bus). The host owns start and stop.
import type { Bus, NatsBus, Subscription } from "@trove/bus";
import { newId, type UnitOfWork } from "@trove/db";
import type { Logger } from "@trove/log";
import { sql, type Kysely } from "kysely";
import { checkConsumerName, checkFilter, checkSubject } from "./filters.ts";
import { readJetStream } from "./jetstream.ts";
import { assignPositions } from "./positions.ts";
import { LogReader } from "./reader.ts";
import { Relay } from "./relay.ts";
import {
  eventColumns,
  loggedEventOf,
  type BatchHandler,
  type ConsumeOptions,
  type EventInput,
  type EventRow,
  type Events,
  type LoggedEvent,
} from "./types.ts";

export interface EventLogOptions {
  db: Kysely<any>;
  bus: Bus;
  log: Logger;
  /**
   * This is the only process on the database (PGlite, behind the data-directory lock): a consumer lease still
   * held at start belonged to a process that died, so start frees it at once rather than after it expires.
   */
  soleProcess?: boolean;
  /** Embedded consumers' lease (default 30 s) and idle look (default 1 s); tests shorten them. */
  readerLeaseMs?: number;
  readerIdleMs?: number;
}

/** One consumer of this process. */
interface Consumer {
  opts: Required<ConsumeOptions>;
  handler: BatchHandler;
  service: string | undefined;
  running?: { stop(): Promise<void>; lag(): Promise<number>; poke?(): void };
  stopped: boolean;
}

const eventsPerInsert = 1_000;
const defaultRetryDelaysMs = [1_000, 5_000, 30_000, 120_000];

export class EventLog implements Events {
  /** Only on NATS: in process, consumers read the log and number what they find (positions.ts). */
  private readonly relay: Relay | undefined;
  private readonly consumers = new Map<string, Consumer>();
  /** This process's reader id: the owner of the leases it takes. */
  private readonly owner = crypto.randomUUID();
  private state: "new" | "started" | "stopping" = "new";

  constructor(private readonly opts: EventLogOptions) {
    this.relay = opts.bus.kind === "nats" ? new Relay(opts.db, opts.bus as NatsBus, opts.log.child({ component: "event-relay" })) : undefined;
  }

  /** True when consumers are JetStream durables (the relay's publish is how events reach them). */
  private get onJetStream(): boolean {
    return this.opts.bus.kind === "nats";
  }

  async record(uow: UnitOfWork, event: EventInput): Promise<string> {
    return (await this.recordMany(uow, [event]))[0]!;
  }

  async recordMany(uow: UnitOfWork, events: EventInput[]): Promise<string[]> {
    if (events.length === 0) return [];
    const now = Date.now();
    const rows = events.map((e) => {
      checkSubject(e.subject);
      return {
        id: e.id ?? newId(),
        stream: e.stream,
        subject: e.subject,
        account_id: e.accountId,
        key: e.key ?? null,
        at: e.at ?? now,
        data: JSON.stringify(e.data),
      };
    });
    for (let i = 0; i < rows.length; i += eventsPerInsert) {
      await uow.db.insertInto("eventlog.events").values(rows.slice(i, i + eventsPerInsert)).execute();
    }
    uow.afterCommit(() => this.committed());
    return rows.map((r) => r.id);
  }

  assignPositions(): Promise<void> {
    return assignPositions(this.opts.db);
  }

  async page(stream: string, accountId: string, afterPosition: number, limit: number, opts: { subjectPrefix?: string } = {}): Promise<LoggedEvent[]> {
    let q = this.opts.db
      .selectFrom("eventlog.events")
      .select(eventColumns)
      .where("stream", "=", stream)
      .where("account_id", "=", accountId)
      .where("position", ">", afterPosition)
      .orderBy("position")
      .limit(limit);
    if (opts.subjectPrefix !== undefined) q = q.where("subject", "like", `${escapeLike(opts.subjectPrefix)}%`);
    return ((await q.execute()) as EventRow[]).map(loggedEventOf);
  }

  async positionBefore(stream: string, accountId: string, atMs: number): Promise<number> {
    const row = await this.opts.db
      .selectFrom("eventlog.events")
      .select((eb) => eb.fn.min<number>("position").as("p"))
      .where("stream", "=", stream)
      .where("account_id", "=", accountId)
      .where("position", "is not", null)
      .where("at", ">=", atMs)
      .executeTakeFirst();
    return row?.p == null ? this.head(stream, accountId) : Number(row.p) - 1;
  }

  async head(stream: string, accountId: string): Promise<number> {
    const row = await this.opts.db
      .selectFrom("eventlog.events")
      .select((eb) => eb.fn.max<number>("position").as("p"))
      .where("stream", "=", stream)
      .where("account_id", "=", accountId)
      .where("position", "is not", null)
      .executeTakeFirst();
    return row?.p == null ? 0 : Number(row.p);
  }

  async exists(accountId: string, subject: string, key: string): Promise<boolean> {
    const row = await this.opts.db
      .selectFrom("eventlog.events")
      .select("seq")
      .where("account_id", "=", accountId)
      .where("key", "=", key)
      .where("subject", "=", subject)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The latest position of each stream. The streams are found by skipping through the (stream, position) index
   * one stream at a time, so the cost grows with the number of streams, not of events.
   */
  async positions(): Promise<Record<string, number>> {
    const { rows } = await sql<{ stream: string; p: number }>`
      with recursive streams as (
        (select stream from eventlog.events where position is not null order by stream limit 1)
        union all
        select (select e.stream from eventlog.events e where e.position is not null and e.stream > s.stream order by e.stream limit 1)
          from streams s where s.stream is not null)
      select stream, (select max(position) from eventlog.events e where e.stream = streams.stream and e.position is not null) as p
        from streams where stream is not null`.execute(this.opts.db);
    return Object.fromEntries(rows.map((r) => [r.stream, Number(r.p)]));
  }

  consume(opts: ConsumeOptions, handler: BatchHandler): Promise<Subscription> {
    return this.consumeAs(undefined, opts, handler);
  }

  /** Like consume, counted in `service`'s lag. */
  async consumeAs(service: string | undefined, opts: ConsumeOptions, handler: BatchHandler): Promise<Subscription> {
    checkConsumerName(opts.name);
    checkFilter(opts.filter);
    if (this.state === "stopping") throw new Error("the event log is stopping");
    // Two readers of one name in one process would hand every event over twice.
    if (this.consumers.has(opts.name)) throw new Error(`event consumer ${opts.name} is already running in this process`);
    const consumer: Consumer = {
      opts: { batch: 100, ackWaitMs: 30_000, retryDelaysMs: defaultRetryDelaysMs, ...opts },
      handler,
      service,
      stopped: false,
    };
    this.consumers.set(opts.name, consumer);
    try {
      if (this.state === "started") await this.run(consumer);
    } catch (err) {
      this.consumers.delete(opts.name);
      throw err;
    }
    return { stop: () => this.stopConsumer(consumer) };
  }

  async lag(): Promise<Record<string, number>> {
    return this.lagOf(() => true);
  }

  /** The lag of the consumers started for one service. */
  lagOfService(service: string): Promise<Record<string, number>> {
    return this.lagOf((c) => c.service === service);
  }

  /** A handle for one service: the same log, its consumers counted in that service's lag. */
  forService(service: string): Events {
    return {
      record: (uow, e) => this.record(uow, e),
      recordMany: (uow, es) => this.recordMany(uow, es),
      assignPositions: () => this.assignPositions(),
      page: (stream, accountId, after, limit, opts) => this.page(stream, accountId, after, limit, opts),
      positionBefore: (stream, accountId, atMs) => this.positionBefore(stream, accountId, atMs),
      head: (stream, accountId) => this.head(stream, accountId),
      exists: (accountId, subject, key) => this.exists(accountId, subject, key),
      consume: (opts, handler) => this.consumeAs(service, opts, handler),
      lag: () => this.lagOfService(service),
    };
  }

  /** Starts the relay and the consumers registered so far (the host calls it once every service has started). */
  async start(): Promise<void> {
    if (this.state !== "new") return;
    if (this.opts.soleProcess) {
      await this.opts.db.updateTable("eventlog.consumers").set({ owner: null, lease_until: null }).where("owner", "is not", null).execute();
    }
    this.state = "started";
    this.relay?.start();
    for (const c of this.consumers.values()) if (!c.stopped && !c.running) await this.run(c);
  }

  /**
   * Consumers finish the batch in hand and stop; then, on NATS, the relay's last pass publishes what has committed
   * (JetStream keeps it for the consumers of the next start) and it stops. In process what commits later simply
   * waits in the log, read from the consumers' positions at the next start.
   */
  async stop(): Promise<void> {
    if (this.state === "stopping") return;
    const wasStarted = this.state === "started";
    this.state = "stopping";
    await Promise.all([...this.consumers.values()].map((c) => this.stopConsumer(c)));
    if (wasStarted) await this.relay?.stop({ flush: true });
  }

  /** After a commit that recorded events: publish them (NATS), and let this process's readers look. */
  private committed(): void {
    // Stopping: the relay's last pass publishes what has committed by then; the rest waits for the next start.
    if (this.state !== "started") return;
    this.relay?.poke();
    for (const c of this.consumers.values()) c.running?.poke?.();
  }

  private async run(c: Consumer): Promise<void> {
    const log = this.opts.log.child({ consumer: c.opts.name });
    const { name, filter, batch, ackWaitMs, retryDelaysMs } = c.opts;
    if (this.opts.bus.kind === "nats") {
      c.running = await readJetStream(this.opts.bus as NatsBus, { name, filter, batch, ackWaitMs, retryDelaysMs, log }, c.handler);
      return;
    }
    const reader = new LogReader(
      this.opts.db,
      c.handler,
      { name, filter, batch, ackWaitMs, retryDelaysMs, owner: this.owner, leaseMs: this.opts.readerLeaseMs, idleMs: this.opts.readerIdleMs },
      log,
    );
    c.running = reader;
    reader.start();
  }

  private async stopConsumer(c: Consumer): Promise<void> {
    if (c.stopped) return;
    c.stopped = true;
    await c.running?.stop();
    if (this.consumers.get(c.opts.name) === c) this.consumers.delete(c.opts.name);
  }

  private async lagOf(which: (c: Consumer) => boolean): Promise<Record<string, number>> {
    const chosen = [...this.consumers.entries()].filter(([, c]) => which(c) && c.running);
    if (chosen.length === 0) return {};
    // On NATS a consumer is also behind by what the relay has yet to publish.
    const unpublished = this.onJetStream ? await this.unpublished() : 0;
    const lags = await Promise.all(chosen.map(([, c]) => c.running!.lag()));
    return Object.fromEntries(chosen.map(([name], i) => [name, lags[i]! + unpublished]));
  }

  /** Committed events the relay has not published yet. */
  private async unpublished(): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select (select count(*) from eventlog.events where position is null)
           + (select count(*) from eventlog.events where published_at is null and position is not null) as n`.execute(this.opts.db);
    return Number(rows[0]?.n ?? 0);
  }
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
