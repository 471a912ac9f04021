// Every query of the webhook endpoints table. Kysely only; the owner's account id is part of every signature.
import { sql, type Kysely } from "kysely";
import type { ScopeFilter } from "@trove/contracts";

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

  /** The endpoints that take new deliveries for an account's events: enabled ones, and paused ones (held). */
  async listeners(accountId: string): Promise<EndpointRow[]> {
    return (await this.db
      .selectFrom(table)
      .selectAll()
      .where("account_id", "=", accountId)
      .where("status", "in", ["enabled", "paused"])
      .execute()) as EndpointRow[];
  }
}
