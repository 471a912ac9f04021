// Every query of the delivery log: deliveries (one per endpoint and event), their attempts, and the endpoint health
// an attempt changes. Kysely only. The owner's account id is in every signature that serves a user; claiming and
// recording attempts is the dispatcher's work across accounts, keyed by the lease it holds.
import { sql, type Kysely } from "kysely";

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
  endpointId: string;
  eventId: string;
  type: string;
  body: string;
  now: number;
}

/** A delivery the dispatcher holds a lease on, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  account_id: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  consecutive_failures: number;
}

export interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  leaseToken: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  message: string | null;
  /** When to try again; null = no more attempts (succeeded, or the last one failed). */
  nextAttemptAt: number | null;
  /** Consecutive failed attempts that disable the endpoint. */
  disableAfter: number;
  /** The endpoint's failure count when claimed: a success only writes the endpoint when it was not 0. */
  failuresBefore: number;
}

const deliveries = "delivery.deliveries";

export class DeliveriesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** New deliveries, due now; one per (endpoint, event): a repeated event adds nothing. */
  async insertMany(accountId: string, rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto(deliveries)
      .values(
        rows.map((r) => ({
          id: r.id,
          account_id: accountId,
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
      .execute();
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

  /**
   * Leases up to `limit` due deliveries of enabled endpoints, oldest due first, at most the free slots of each
   * endpoint (`perEndpoint` less what this process has in flight to it, `busy`). One statement: a row already
   * leased by another dispatcher is re-checked after its lock and skipped, so two processes never hold the same
   * delivery.
   */
  async claim(o: { now: number; limit: number; perEndpoint: number; busy: Record<string, number>; leaseUntil: number; token: string }): Promise<ClaimedDelivery[]> {
    const { rows } = await sql<ClaimedDelivery>`
      update delivery.deliveries d set lease_until = ${o.leaseUntil}, lease_token = ${o.token}
      from delivery.endpoints e
      where e.id = d.endpoint_id
        and d.status = 'pending' and (d.lease_until is null or d.lease_until < ${o.now})
        and d.id in (
          select s.id from (
            select due.id, due.next_attempt_at,
              row_number() over (partition by ep.id order by due.next_attempt_at) as rn,
              coalesce((${JSON.stringify(o.busy)}::jsonb ->> ep.id)::int, 0) as busy
            from delivery.endpoints ep
            cross join lateral (
              select x.id, x.next_attempt_at from delivery.deliveries x
              where x.endpoint_id = ep.id and x.status = 'pending' and x.next_attempt_at <= ${o.now}
                and (x.lease_until is null or x.lease_until < ${o.now})
              order by x.next_attempt_at limit ${o.perEndpoint}
            ) due
            where ep.status = 'enabled'
          ) s
          where s.rn <= ${o.perEndpoint} - s.busy
          order by s.next_attempt_at limit ${o.limit}
        )
      returning d.id, d.endpoint_id, d.account_id, d.body, d.attempts, e.url, e.secret, e.previous_secret,
        e.previous_secret_expires_at, e.consecutive_failures`.execute(this.db);
    return rows;
  }

  /** When the next claim could find work (a due time or a lease running out), skipping busy endpoints; null: none. */
  async nextDue(exclude: string[]): Promise<number | null> {
    const { rows } = await sql<{ due: number | null }>`
      select min(greatest(d.next_attempt_at, coalesce(d.lease_until, 0)))::int8 as due
      from delivery.deliveries d join delivery.endpoints e on e.id = d.endpoint_id
      where d.status = 'pending' and e.status = 'enabled' and d.endpoint_id <> all(${exclude}::text[])`.execute(this.db);
    const due = rows[0]?.due;
    return due === null || due === undefined ? null : Number(due);
  }

  /** Gives leased deliveries back untouched (a dispatcher stopping, or holding more than it may send). */
  async release(ids: string[], token: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable(deliveries)
      .set({ lease_until: null, lease_token: null })
      .where("id", "in", ids)
      .where("lease_token", "=", token)
      .execute();
  }

  /**
   * One transaction for a batch of finished attempts (in the order they finished): each attempt's row, each
   * delivery's new state, and each endpoint's health (a success clears its failure count; failures count, and the
   * one that reaches `disableAfter` disables an enabled endpoint, whose pending deliveries are then dropped as
   * failed). An attempt whose lease was lost (another process took the delivery over, or the endpoint was deleted)
   * writes nothing. Answers the ids of the deliveries recorded and of the endpoints this batch disabled.
   */
  async recordAttempts(batch: AttemptResult[]): Promise<{ recorded: Set<string>; disabled: string[] }> {
    if (batch.length === 0) return { recorded: new Set(), disabled: [] };
    return this.db.transaction().execute(async (tx) => {
      // Endpoints first, as deleting one does (endpoint, then its deliveries): the other order deadlocks with it.
      const endpointIds = [...new Set(batch.map((r) => r.endpointId))].sort();
      const live = new Set(
        (await tx.selectFrom("delivery.endpoints").select("id").where("id", "in", endpointIds).orderBy("id").forKeyShare().execute()).map((e) => e.id as string),
      );
      const rows = batch.filter((r) => live.has(r.endpointId));
      if (rows.length === 0) return { recorded: new Set<string>(), disabled: [] };
      const values = sql.join(
        rows.map(
          (r) =>
            sql`(${r.deliveryId}, ${r.leaseToken}, ${r.ok ? "succeeded" : r.nextAttemptAt === null ? "failed" : "pending"}, ${r.attempt}::int4, ${r.statusCode}::int4, ${r.error}::text, ${r.nextAttemptAt}::int8)`,
        ),
      );
      const { rows: updated } = await sql<{ id: string }>`
        update delivery.deliveries d set status = v.status, attempts = v.attempt, last_status_code = v.status_code,
          last_error = v.error, next_attempt_at = v.next_attempt_at, lease_until = null, lease_token = null
        from (values ${values}) as v (id, token, status, attempt, status_code, error, next_attempt_at)
        where d.id = v.id and d.lease_token = v.token
        returning d.id`.execute(tx);
      const recorded = new Set(updated.map((u) => u.id));
      const done = rows.filter((r) => recorded.has(r.deliveryId));
      if (done.length === 0) return { recorded, disabled: [] };
      await tx
        .insertInto("delivery.attempts")
        .values(
          done.map((r) => ({
            id: Bun.randomUUIDv7(),
            delivery_id: r.deliveryId,
            attempt: r.attempt,
            started_at: r.startedAt,
            duration_ms: r.durationMs,
            status_code: r.statusCode,
            error: r.error,
            message: r.message,
          })),
        )
        .execute();
      const disabled: string[] = [];
      for (const endpointId of endpointIds) {
        const mine = done.filter((r) => r.endpointId === endpointId);
        if (mine.length === 0) continue;
        const lastOk = mine.findLastIndex((r) => r.ok);
        const failures = mine.length - 1 - lastOk; // failed attempts after the last success (or all of them)
        if (mine.every((r) => r.ok && r.failuresBefore === 0)) continue; // nothing changes
        const at = Math.max(...mine.map((r) => r.startedAt + r.durationMs));
        // After a success the count restarts from the failures that followed it; without one, it grows.
        const count = lastOk >= 0 ? sql`${failures}::int4` : sql`consecutive_failures + ${failures}::int4`;
        const disables = sql`status = 'enabled' and ${count} >= ${mine[0]!.disableAfter}::int4`;
        const endpoint = await tx
          .updateTable("delivery.endpoints")
          .set({
            // A disabled endpoint keeps the count that disabled it until the user re-enables it.
            consecutive_failures: sql`case when status = 'disabled' then consecutive_failures else ${count} end`,
            status: sql`case when ${disables} then 'disabled' else status end`,
            disabled_at: sql`case when ${disables} then ${at}::int8 else disabled_at end`,
          })
          .where("id", "=", endpointId)
          .returning(["status", "disabled_at"])
          .executeTakeFirst();
        if (endpoint?.status !== "disabled" || mine.every((r) => r.ok)) continue;
        if (Number(endpoint.disabled_at) === at) disabled.push(endpointId);
        await tx
          .updateTable(deliveries)
          .set({ status: "failed", last_error: "endpoint_disabled", next_attempt_at: null })
          .where("endpoint_id", "=", endpointId)
          .where("status", "=", "pending")
          .where((eb) => eb.or([eb("lease_token", "is", null), eb("lease_until", "<", at)]))
          .execute();
      }
      return { recorded, disabled };
    });
  }
}
