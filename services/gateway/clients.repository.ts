// Connected-client keys of an account (rows of gateway.api_keys with kind 'client'). Kysely only; the owner
// account id is in every signature.
import type { Kysely } from "kysely";
import type { KeyScope } from "@trove/contracts";

export interface ClientRow {
  id: string;
  name: string;
  access: "read_write" | "read_only";
  scope: KeyScope | null;
  createdAt: number;
  lastUsedAt: number | null;
}

const columns = ["id", "name", "access", "scope", "created_at as createdAt", "last_used_at as lastUsedAt"] as const;

export class ClientsRepository {
  constructor(private readonly db: Kysely<any>) {}

  async create(
    accountId: string,
    c: { id: string; name: string; keyHash: string; access: ClientRow["access"]; scope: KeyScope | null; now: number },
  ): Promise<ClientRow> {
    const row = await this.db
      .insertInto("gateway.api_keys")
      .values({
        id: c.id,
        account_id: accountId,
        kind: "client",
        name: c.name,
        key_hash: c.keyHash,
        access: c.access,
        scope: c.scope ? JSON.stringify(c.scope) : null,
        created_at: c.now,
      })
      .returning(columns)
      .executeTakeFirstOrThrow();
    return row as ClientRow;
  }

  /** The account's client keys not revoked, newest first. */
  async listActive(accountId: string): Promise<ClientRow[]> {
    const rows = await this.db
      .selectFrom("gateway.api_keys")
      .select(columns)
      .where("account_id", "=", accountId)
      .where("kind", "=", "client")
      .where("revoked_at", "is", null)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows as ClientRow[];
  }

  /**
   * Revokes the account's live client key with this id; false when there is none (unknown, personal, revoked). With
   * `mark`, its shared request count is marked revoked in the same transaction (see RateLimiter.revocationMark), so
   * no replica can see the one without the other.
   */
  async revoke(accountId: string, id: string, now: number, mark?: { key: string; points: number; expire: number }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable("gateway.api_keys")
        .set({ revoked_at: now })
        .where("account_id", "=", accountId)
        .where("id", "=", id)
        .where("kind", "=", "client")
        .where("revoked_at", "is", null)
        .returning("id")
        .executeTakeFirst();
      if (row === undefined) return false;
      if (mark) {
        await trx
          .insertInto("gateway.rate_limits")
          .values(mark)
          .onConflict((oc) => oc.column("key").doUpdateSet({ points: mark.points, expire: mark.expire }))
          .execute();
      }
      return true;
    });
  }
}
