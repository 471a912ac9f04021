// Sessions and account passwords. Kysely only; the account's id in every signature that reads or ends sessions.
import { sql, type Kysely } from "kysely";

export interface SessionRow {
  id: string;
  accountId: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
  userAgent: string | null;
  address: string | null;
}

export interface AccountRow {
  id: string;
  email: string;
  plan: string;
  passwordHash: string | null;
}

export interface SessionCallerRow extends SessionRow {
  email: string;
  plan: string;
  linkLimit: number;
  limitScope: "lifetime" | "billing_cycle";
}

// The last-use time is written at most this often per session (seconds): every page load asks.
const TOUCH_EVERY = 60;

// When the session was last used (a session is used when it is made).
const lastUse = sql<number>`coalesce(s.last_used_at, s.created_at)`;

const sessionColumns = [
  "s.id as id",
  "s.account_id as accountId",
  "s.csrf_token as csrfToken",
  "s.created_at as createdAt",
  "s.expires_at as expiresAt",
  "s.last_used_at as lastUsedAt",
  "s.user_agent as userAgent",
  "s.address as address",
] as const;

export class SessionsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The account with this email and its password hash (null: no password set), or undefined. */
  accountByEmail(email: string): Promise<AccountRow | undefined> {
    return this.accountWhere("email", email);
  }

  account(accountId: string): Promise<AccountRow | undefined> {
    return this.accountWhere("id", accountId);
  }

  private async accountWhere(column: "id" | "email", value: string): Promise<AccountRow | undefined> {
    return (await this.db
      .selectFrom("gateway.accounts")
      .select(["id", "email", "plan", "password_hash as passwordHash"])
      .where(column, "=", value)
      .executeTakeFirst()) as AccountRow | undefined;
  }

  async setPassword(accountId: string, passwordHash: string): Promise<void> {
    await this.db.updateTable("gateway.accounts").set({ password_hash: passwordHash }).where("id", "=", accountId).execute();
  }

  async create(s: { id: string; accountId: string; tokenHash: string; csrfToken: string; now: number; expiresAt: number; userAgent: string | null; address: string | null }): Promise<SessionRow> {
    await this.db
      .insertInto("gateway.sessions")
      .values({
        id: s.id,
        account_id: s.accountId,
        token_hash: s.tokenHash,
        csrf_token: s.csrfToken,
        created_at: s.now,
        expires_at: s.expiresAt,
        last_used_at: s.now,
        user_agent: s.userAgent,
        address: s.address,
      })
      .execute();
    return { id: s.id, accountId: s.accountId, csrfToken: s.csrfToken, createdAt: s.now, expiresAt: s.expiresAt, lastUsedAt: s.now, userAgent: s.userAgent, address: s.address };
  }

  /**
   * The live session with this token hash and its account, or undefined; notes its use (at most once a minute).
   * Live: not ended, not past its lifetime, and used after `idleSince`.
   */
  async use(tokenHash: string, now: number, idleSince: number): Promise<SessionCallerRow | undefined> {
    const row = (await this.db
      .selectFrom("gateway.sessions as s")
      .innerJoin("gateway.accounts as a", "a.id", "s.account_id")
      .select([...sessionColumns, "a.email as email", "a.plan as plan", "a.link_limit as linkLimit", "a.limit_scope as limitScope"])
      .where("s.token_hash", "=", tokenHash)
      .where("s.revoked_at", "is", null)
      .where("s.expires_at", ">", now)
      .where(lastUse, ">", idleSince)
      .executeTakeFirst()) as SessionCallerRow | undefined;
    if (row && (row.lastUsedAt === null || now - Number(row.lastUsedAt) >= TOUCH_EVERY)) {
      await this.db.updateTable("gateway.sessions").set({ last_used_at: now }).where("id", "=", row.id).execute();
      row.lastUsedAt = now;
    }
    return row;
  }

  /** The account's live sessions (as in use()), newest first. */
  async list(accountId: string, now: number, idleSince: number): Promise<SessionRow[]> {
    return (await this.db
      .selectFrom("gateway.sessions as s")
      .select(sessionColumns)
      .where("s.account_id", "=", accountId)
      .where("s.revoked_at", "is", null)
      .where("s.expires_at", ">", now)
      .where(lastUse, ">", idleSince)
      .orderBy("s.created_at", "desc")
      .orderBy("s.id", "desc")
      .execute()) as SessionRow[];
  }

  /** Ends one of the account's live sessions; false when it has no such live session. */
  async revoke(accountId: string, id: string, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable("gateway.sessions")
      .set({ revoked_at: now })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Ends every live session of the account but `keep`. */
  async revokeOthers(accountId: string, keep: string | null, now: number): Promise<void> {
    let q = this.db.updateTable("gateway.sessions").set({ revoked_at: now }).where("account_id", "=", accountId).where("revoked_at", "is", null);
    if (keep) q = q.where("id", "!=", keep);
    await q.execute();
  }
}
