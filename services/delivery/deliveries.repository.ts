// Every query of the delivery log: deliveries (one per endpoint and event), their attempts, and what an attempt
// needs to be made. Kysely only. The owner's account id is in every signature that serves a user; reading a
// delivery to send it and writing how its attempt went is the webhook job's work, keyed by the delivery id its
// job carries. When a delivery's next attempt runs is the work queue's; `next_attempt_at` shows it to users.
import { sql, type Kysely } from "kysely";
import type { UnitOfWork } from "@trove/db";

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface DeliveryRow {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  message: string | null;
}

export interface NewDelivery {
  id: string;
  accountId: string;
  endpointId: string;
  eventId: string;
  type: string;
  body: string;
  now: number;
}

/** A delivery as an attempt sends it, with its endpoint's address, secrets and health. */
export interface DeliveryTarget {
  id: string;
  endpoint_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  consecutive_failures: number;
  endpoint_status: "enabled" | "paused" | "disabled";
}

/** One attempt as it is written, and what its delivery becomes. */
export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  message: string | null;
  status: DeliveryStatus;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: number | null;
}

const deliveries = "delivery.deliveries";
/** Rows per insert: 1,000 rows of 10 values stay far below PostgreSQL's 65,535 parameters. */
const insertChunk = 1_000;

export class DeliveriesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The same queries in a unit of work. */
  on(uow: UnitOfWork): DeliveriesRepository {
    return new DeliveriesRepository(uow.db);
  }

  /**
   * New deliveries, due now; one per (endpoint, event): a repeated event adds nothing. Answers the ones added (the
   * others were made when the event was handed over before).
   */
  async insertMany(rows: NewDelivery[]): Promise<NewDelivery[]> {
    const added = new Set<string>();
    for (let i = 0; i < rows.length; i += insertChunk) {
      const inserted = await this.db
        .insertInto(deliveries)
        .values(
          rows.slice(i, i + insertChunk).map((r) => ({
            id: r.id,
            account_id: r.accountId,
            endpoint_id: r.endpointId,
            event_id: r.eventId,
            type: r.type,
            body: r.body,
            status: "pending",
            next_attempt_at: r.now,
            created_at: r.now,
          })),
        )
        .onConflict((oc) => oc.columns(["endpoint_id", "event_id"]).doNothing())
        .returning("id")
        .execute();
      for (const r of inserted) added.add(r.id as string);
    }
    return rows.filter((r) => added.has(r.id));
  }

  async get(accountId: string, id: string): Promise<DeliveryRow | undefined> {
    return (await this.db.selectFrom(deliveries).selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst()) as
      | DeliveryRow
      | undefined;
  }

  /** An endpoint's deliveries, newest first, with the attempts of each (oldest first). */
  async list(
    accountId: string,
    endpointId: string,
    page: { limit: number; offset: number; status?: DeliveryStatus },
  ): Promise<{ rows: DeliveryRow[]; attempts: AttemptRow[]; count: number }> {
    let base = this.db.selectFrom(deliveries).where("account_id", "=", accountId).where("endpoint_id", "=", endpointId);
    if (page.status) base = base.where("status", "=", page.status);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as DeliveryRow[], attempts: await this.attemptsOf(rows.map((r) => r.id as string)), count: Number(total.n) };
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return (await this.db
      .selectFrom("delivery.attempts")
      .select(["delivery_id", "attempt", "started_at", "duration_ms", "status_code", "error", "message"])
      .where("delivery_id", "in", deliveryIds)
      .orderBy("started_at")
      .orderBy("id")
      .execute()) as AttemptRow[];
  }

  /** What attempts of these deliveries need; a delivery gone (with its endpoint) is left out. */
  async targets(ids: string[]): Promise<DeliveryTarget[]> {
    if (ids.length === 0) return [];
    return (await this.db
      .selectFrom(`${deliveries} as d`)
      .innerJoin("delivery.endpoints as e", "e.id", "d.endpoint_id")
      .select([
        "d.id",
        "d.endpoint_id",
        "d.body",
        "d.status",
        "d.attempts",
        "e.url",
        "e.secret",
        "e.previous_secret",
        "e.previous_secret_expires_at",
        "e.consecutive_failures",
        "e.status as endpoint_status",
      ])
      .where("d.id", "in", ids)
      .execute()) as DeliveryTarget[];
  }

  /**
   * Writes attempts and their deliveries' new states, a thousand per statement, the endpoints' rows locked first
   * (for key share, as deleting an endpoint locks it before its deliveries: the other order deadlocks with a
   * delete). A delivery gone or no longer pending gets nothing written.
   */
  async record(records: AttemptRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i += insertChunk) {
      const chunk = records.slice(i, i + insertChunk);
      const endpointIds = [...new Set(chunk.map((r) => r.endpointId))].sort();
      const values = sql.join(
        chunk.map(
          (r) =>
            sql`(${r.deliveryId}::text, ${r.status}::text, ${r.attempt}::int4, ${r.statusCode}::int4, ${r.error}::text, ${r.nextAttemptAt}::int8,
              ${Bun.randomUUIDv7()}::text, ${r.startedAt}::int8, ${r.durationMs}::int4, ${r.message}::text)`,
        ),
      );
      await sql`
        with endpoint as (select id from delivery.endpoints where id = any(${endpointIds}::text[]) order by id for key share),
        v (id, status, attempt, status_code, error, next_attempt_at, attempt_id, started_at, duration_ms, message) as (values ${values}),
        delivery as (
          update delivery.deliveries d set status = v.status, attempts = v.attempt, last_status_code = v.status_code,
            last_error = v.error, next_attempt_at = v.next_attempt_at
          from v where d.id = v.id and d.status = 'pending' and d.endpoint_id in (select id from endpoint)
          returning d.id)
        insert into delivery.attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error, message)
        select v.attempt_id, v.id, v.attempt, v.started_at, v.duration_ms, v.status_code, v.error, v.message
          from v join delivery on delivery.id = v.id`.execute(this.db);
    }
  }

  /** A pending delivery's next attempt is due at `at` (it was given back, or a fault of ours put it off). */
  async dueAt(id: string, at: number): Promise<void> {
    await this.db.updateTable(deliveries).set({ next_attempt_at: at }).where("id", "=", id).where("status", "=", "pending").execute();
  }

  /** A pending delivery fails without another attempt, for `code` (its endpoint disabled or deleted, its runs cut short). */
  /** Fails a pending delivery; answers whether one was (an ended or deleted one is left as it is). */
  async fail(id: string, code: string): Promise<boolean> {
    const res = await this.db
      .updateTable(deliveries)
      .set({ status: "failed", last_error: code, next_attempt_at: null })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Held deliveries of a resumed endpoint become due now (those already due stay as they are). */
  async resumeHeld(accountId: string, endpointId: string, now: number): Promise<void> {
    await this.db
      .updateTable(deliveries)
      .set({ next_attempt_at: now })
      .where("account_id", "=", accountId)
      .where("endpoint_id", "=", endpointId)
      .where("status", "=", "pending")
      .where("next_attempt_at", ">", now)
      .execute();
  }
}
