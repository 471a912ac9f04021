// Accounts and their API keys (stored as SHA-256 hashes). Kysely only.
import type { Kysely } from "kysely";
import type { KeyScope } from "@trove/contracts";

export interface KeyRow {
  keyId: string;
  keyKind: "personal" | "client";
  access: "read_write" | "read_only";
  scope: KeyScope | null;
  accountId: string;
  plan: string;
  linkLimit: number;
  limitScope: "lifetime" | "billing_cycle";
}

export class AccountsRepository {
  private readonly db: Kysely<any>;
  constructor(db: Kysely<any>) {
    this.db = db;
  }

  /**
   * The live key with this hash and its account, or undefined; marks the key used (one statement: the gateway
   * asks only when its cache cannot answer, so `last_used_at` is as fresh as the cache).
   */
  async useKey(keyHash: string, now: number): Promise<KeyRow | undefined> {
    const row = await this.db
      .updateTable("gateway.api_keys as k")
      .from("gateway.accounts as a")
      .set({ last_used_at: now })
      .whereRef("a.id", "=", "k.account_id")
      .where("k.key_hash", "=", keyHash)
      .where("k.revoked_at", "is", null)
      .returning([
        "k.id as keyId",
        "k.kind as keyKind",
        "k.access as access",
        "k.scope as scope",
        "a.id as accountId",
        "a.plan as plan",
        "a.link_limit as linkLimit",
        "a.limit_scope as limitScope",
      ])
      .executeTakeFirst();
    return row as KeyRow | undefined;
  }

  /** The account's plan, or undefined when there is no such account. */
  async planOf(accountId: string): Promise<Pick<KeyRow, "plan" | "linkLimit" | "limitScope"> | undefined> {
    return (await this.db
      .selectFrom("gateway.accounts")
      .select(["plan", "link_limit as linkLimit", "limit_scope as limitScope"])
      .where("id", "=", accountId)
      .executeTakeFirst()) as Pick<KeyRow, "plan" | "linkLimit" | "limitScope"> | undefined;
  }

  /** Creates the account or updates its plan; returns its id. */
  async upsertAccount(a: { id: string; email: string; plan: string; linkLimit: number; limitScope: string; now: number }): Promise<string> {
    const row = await this.db
      .insertInto("gateway.accounts")
      .values({ id: a.id, email: a.email, plan: a.plan, link_limit: a.linkLimit, limit_scope: a.limitScope, created_at: a.now })
      .onConflict((oc) => oc.column("email").doUpdateSet({ plan: a.plan, link_limit: a.linkLimit, limit_scope: a.limitScope }))
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id as string;
  }

  /** Adds a key unless one with this hash exists; returns the account that holds the hash. */
  async ensureKey(k: { id: string; accountId: string; kind: string; name: string; keyHash: string; access: string; now: number }): Promise<string> {
    await this.db
      .insertInto("gateway.api_keys")
      .values({ id: k.id, account_id: k.accountId, kind: k.kind, name: k.name, key_hash: k.keyHash, access: k.access, created_at: k.now })
      .onConflict((oc) => oc.column("key_hash").doNothing())
      .execute();
    const row = await this.db.selectFrom("gateway.api_keys").select("account_id").where("key_hash", "=", k.keyHash).executeTakeFirstOrThrow();
    return row.account_id as string;
  }
}
