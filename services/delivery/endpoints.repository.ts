// Every query of the webhook endpoints table. Kysely only; the owner's account id is part of every signature that
// serves a user; the fan-out reads the endpoints of the accounts in a batch of events, and an attempt's end counts
// its endpoint's failures.
import { sql, type Kysely } from "kysely";
import type { ScopeFilter } from "@trove/contracts";
import type { UnitOfWork } from "@trove/db";

export type EndpointStatus = "enabled" | "paused" | "disabled";

export interface EndpointRow {
  id: string;
  account_id: string;
  name: string;
  url: string;
  event_types: string[];
  resource_scope: ScopeFilter | null;
  status: EndpointStatus;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  consecutive_failures: number;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface NewEndpoint {
  id: string;
  name: string;
  url: string;
  eventTypes: string[];
  resourceScope: ScopeFilter | null;
  secret: string;
  now: number;
}

export interface EndpointChanges {
  name?: string;
  url?: string;
  eventTypes?: string[];
  resourceScope?: ScopeFilter | null;
  status?: "enabled" | "paused";
}

const table = "delivery.endpoints";

export class EndpointsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The same queries in a unit of work. */
  on(uow: UnitOfWork): EndpointsRepository {
    return new EndpointsRepository(uow.db);
  }

  async insert(accountId: string, e: NewEndpoint): Promise<EndpointRow> {
    return (await this.db
      .insertInto(table)
      .values({
        id: e.id,
        account_id: accountId,
        name: e.name,
        url: e.url,
        event_types: JSON.stringify(e.eventTypes),
        resource_scope: e.resourceScope === null ? null : JSON.stringify(e.resourceScope),
        status: "enabled",
        secret: e.secret,
        created_at: e.now,
        updated_at: e.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()) as EndpointRow;
  }

  async list(accountId: string, limit: number, offset: number): Promise<{ rows: EndpointRow[]; count: number }> {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom(table)
        .selectAll()
        .where("account_id", "=", accountId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).where("account_id", "=", accountId).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as EndpointRow[], count: Number(total.n) };
  }

  async get(accountId: string, id: string): Promise<EndpointRow | undefined> {
    return (await this.db.selectFrom(table).selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst()) as
      | EndpointRow
      | undefined;
  }

  /**
   * Applies a user's change in one statement. Setting `enabled` on a disabled endpoint re-enables it and clears its
   * failure count; leaving `disabled` any way clears `disabled_at`.
   */
  async update(accountId: string, id: string, c: EndpointChanges, now: number): Promise<EndpointRow | undefined> {
    const set: Record<string, unknown> = { updated_at: now };
    if (c.name !== undefined) set.name = c.name;
    if (c.url !== undefined) set.url = c.url;
    if (c.eventTypes !== undefined) set.event_types = JSON.stringify(c.eventTypes);
    if (c.resourceScope !== undefined) set.resource_scope = c.resourceScope === null ? null : JSON.stringify(c.resourceScope);
    if (c.status !== undefined) {
      set.status = c.status;
      set.disabled_at = null;
      set.consecutive_failures = sql`case when status = 'disabled' then 0 else consecutive_failures end`;
    }
    return (await this.db
      .updateTable(table)
      .set(set)
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst()) as EndpointRow | undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom(table).where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** A new current secret; the one it replaces keeps signing until `previousExpiresAt` (null: not at all). */
  async rotate(accountId: string, id: string, secret: string, previousExpiresAt: number | null, now: number): Promise<EndpointRow | undefined> {
    return (await this.db
      .updateTable(table)
      .set((eb) => ({
        previous_secret: previousExpiresAt === null ? null : eb.ref("secret"),
        previous_secret_expires_at: previousExpiresAt,
        secret,
        updated_at: now,
      }))
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst()) as EndpointRow | undefined;
  }

  /** The endpoints that take new deliveries for these accounts' events: enabled ones, and paused ones (held). */
  async listeners(accountIds: string[]): Promise<EndpointRow[]> {
    if (accountIds.length === 0) return [];
    return (await this.db
      .selectFrom(table)
      .selectAll()
      .where("account_id", "in", accountIds)
      .where("status", "in", ["enabled", "paused"])
      .execute()) as EndpointRow[];
  }

  /** A success clears the failure count (a disabled endpoint keeps the count that disabled it until re-enabled). */
  async countSuccess(id: string): Promise<void> {
    await this.db
      .updateTable(table)
      .set({ consecutive_failures: 0 })
      .where("id", "=", id)
      .where("status", "<>", "disabled")
      .where("consecutive_failures", "<>", 0)
      .execute();
  }

  /**
   * Counts a failed attempt that ended at `at`; the one that reaches `disableAfter` disables an enabled endpoint.
   * True when this one disabled it.
   */
  async countFailure(id: string, at: number, disableAfter: number): Promise<boolean> {
    // Every right-hand side reads the row as it was before this statement.
    const disables = sql`status = 'enabled' and consecutive_failures + 1 >= ${disableAfter}::int4`;
    const row = await this.db
      .updateTable(table)
      .set({
        consecutive_failures: sql`case when status = 'disabled' then consecutive_failures else consecutive_failures + 1 end`,
        status: sql`case when ${disables} then 'disabled' else status end`,
        disabled_at: sql`case when ${disables} then ${at}::int8 else disabled_at end`,
      })
      .where("id", "=", id)
      .returning(["status", "disabled_at"])
      .executeTakeFirst();
    return row?.status === "disabled" && Number(row.disabled_at) === at;
  }
}
