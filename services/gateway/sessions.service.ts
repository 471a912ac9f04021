// Browser sessions: sign-in with email and password (or a personal key), the HttpOnly cookie, the session's CSRF
// token, listing and ending sessions, and setting the password. A session acts as its account's personal key until
// its lifetime is up or it goes unused for the idle time. Passwords are hashed with argon2id (Bun.password, off
// the event loop); tokens are random, the cookie's kept as SHA-256 only. Sign-in starts are budgeted per address
// (the spec's 10 per 60 s), failed password checks per account (whatever the address: a guesser with many
// addresses still gets only so many tries at one account); on PostgreSQL every gateway replica counts in one budget.
import type { Caller, GatewayHttp } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import { hashKey } from "./accounts.service.ts";
import type { AccountsRepository } from "./accounts.repository.ts";
import { RateLimiter, type RateStore } from "./ratelimit.ts";
import type { AccountRow, SessionRow, SessionsRepository } from "./sessions.repository.ts";

export const sessionCookie = "trove_session";
export const csrfHeader = "x-csrf-token";

const tokenPrefix = "trove_s_";
const wrongCredentials = "the email and password (or key) do not match an account";

/** The window of the per-account budget of failed password checks. */
export const accountWindowSeconds = 15 * 60;

export interface SessionLimits {
  /** A session's lifetime from sign-in. */
  ttlHours: number;
  /** A session unused this long ends. */
  idleHours: number;
  /** Sign-in starts per address per 60 s. */
  signInLimit: number;
  /** Failed password checks per account per accountWindowSeconds. */
  accountLimit: number;
}

export interface SessionCheck {
  caller: Caller;
  sessionId: string;
  csrfToken: string;
}

export class SessionsService {
  private readonly starts: RateLimiter;
  private readonly failures: RateLimiter;
  private readonly idleSeconds: number;
  // Compared against when the email is unknown, so a wrong email costs the same time as a wrong password.
  private decoy: Promise<string> | null = null;

  constructor(
    private readonly repo: SessionsRepository,
    private readonly keys: AccountsRepository,
    private readonly log: Logger,
    private readonly limits: SessionLimits,
    /** Where the budgets are counted: shared by the replicas on PostgreSQL, memory by default. */
    rateStore?: RateStore,
  ) {
    this.starts = new RateLimiter(limits.signInLimit, "sign-in", undefined, rateStore);
    this.failures = new RateLimiter(limits.accountLimit, "sign-in-account", accountWindowSeconds, rateStore);
    this.idleSeconds = limits.idleHours * 3600;
  }

  async signIn(body: { email?: string; password?: string; key?: string }, http: GatewayHttp) {
    const byKey = body.key !== undefined;
    if (byKey === (body.email !== undefined || body.password !== undefined) || (!byKey && (body.email === undefined || body.password === undefined))) {
      throw new AppError("validation_failed", "send email and password, or key", { fields: { body: "email and password, or key" } });
    }
    const budget = await this.starts.take(http.address);
    http.rateLimit(budget.headers);
    if (!budget.allowed) {
      throw new AppError("rate_limited", `more than ${this.limits.signInLimit} sign-in attempts from this address in 60 s; retry after ${budget.headers["Retry-After"]} s`);
    }
    const now = nowSeconds();
    const accountId = byKey ? await this.personalKeyAccount(body.key!, now) : await this.passwordAccount(body.email!, body.password!, http);
    if (!accountId) throw new AppError("unauthorized", wrongCredentials);
    const account = (await this.repo.account(accountId))!;
    const token = tokenPrefix + randomToken(32);
    const ttl = this.limits.ttlHours * 3600;
    const session = await this.repo.create({
      id: newId(),
      accountId,
      tokenHash: hashKey(token),
      csrfToken: randomToken(24),
      now,
      expiresAt: now + ttl,
      userAgent: http.userAgent?.slice(0, 500) ?? null,
      address: http.address,
    });
    http.setCookie(cookie(token, ttl, http.secure));
    this.log.info({ account: accountId, session: session.id }, "signed in");
    return { account: { email: account.email, plan: account.plan }, session: this.view(session, session.id), csrfToken: session.csrfToken };
  }

  /** The caller a session cookie stands for, with its CSRF token; null for an unknown, ended or expired one. */
  async authenticate(token: string): Promise<SessionCheck | null> {
    if (!token.startsWith(tokenPrefix) || token.length > 200) return null;
    const now = nowSeconds();
    const row = await this.repo.use(hashKey(token), now, now - this.idleSeconds);
    if (!row) return null;
    const caller: Caller = {
      accountId: row.accountId,
      keyId: row.id,
      keyKind: "personal",
      access: "read_write",
      scope: null,
      plan: { name: row.plan, linkLimit: Number(row.linkLimit), limitScope: row.limitScope },
    };
    return { caller, sessionId: row.id, csrfToken: row.csrfToken };
  }

  /** Who the caller is; with the session cookie, the session and its CSRF token (the app's reload reads it here). */
  async current(caller: Caller, http: GatewayHttp | undefined) {
    const account = await this.repo.account(caller.accountId);
    if (!account) throw new AppError("unauthorized", "no such account");
    const session = http?.sessionId ? (await this.live(caller.accountId)).find((s) => s.id === http.sessionId) : undefined;
    return {
      // A connected client acts for the person but is not them: it is not told their email.
      account: { email: caller.keyKind === "personal" ? account.email : null, plan: account.plan },
      session: session ? this.view(session, session.id) : null,
      csrfToken: session?.csrfToken ?? null,
    };
  }

  /** Ends the session the cookie names (if it is live) and clears the cookie. */
  async signOut(http: GatewayHttp | undefined) {
    if (http?.sessionToken) {
      const now = nowSeconds();
      const row = await this.repo.use(hashKey(http.sessionToken), now, now - this.idleSeconds);
      if (row) await this.repo.revoke(row.accountId, row.id, now);
    }
    http?.setCookie(cookie("", 0, http.secure));
    return { ok: true };
  }

  async list(caller: Caller, http: GatewayHttp | undefined) {
    const sessions = await this.live(caller.accountId);
    return { sessions: sessions.map((s) => this.view(s, http?.sessionId ?? null)) };
  }

  async revoke(caller: Caller, id: string) {
    if (!(await this.repo.revoke(caller.accountId, id, nowSeconds()))) throw new AppError("not_found", "no such live session");
    return { ok: true, id };
  }

  /**
   * Sets the password; once the account has one, only with it (a stolen session or key alone cannot lock the
   * owner out). Every other session of the account ends (the one making the change stays).
   */
  async setPassword(caller: Caller, body: { password: string; currentPassword?: string }, http: GatewayHttp | undefined) {
    const account = await this.repo.account(caller.accountId);
    if (!account) throw new AppError("unauthorized", "no such account");
    if (account.passwordHash) {
      if (body.currentPassword === undefined) {
        throw new AppError("validation_failed", "send currentPassword: the account has a password", { fields: { currentPassword: "required once the account has a password" } });
      }
      if (!(await this.checkPassword(account.email, account, body.currentPassword, http))) {
        throw new AppError("forbidden", "currentPassword does not match the account's password");
      }
    }
    await this.repo.setPassword(caller.accountId, await Bun.password.hash(body.password, { algorithm: "argon2id" }));
    await this.repo.revokeOthers(caller.accountId, http?.sessionId ?? null, nowSeconds());
    return { ok: true };
  }

  /** Seeding: sets the password unless the stored hash already matches it (no new hash at every start). */
  async seedPassword(email: string, password: string): Promise<void> {
    const account = await this.repo.accountByEmail(email);
    if (!account) return;
    if (account.passwordHash && (await Bun.password.verify(password, account.passwordHash))) return;
    await this.repo.setPassword(account.id, await Bun.password.hash(password, { algorithm: "argon2id" }));
  }

  private async passwordAccount(rawEmail: string, password: string, http: GatewayHttp): Promise<string | null> {
    const email = rawEmail.trim().toLowerCase();
    const account = await this.repo.accountByEmail(email);
    return (await this.checkPassword(email, account, password, http)) ? account!.id : null;
  }

  /**
   * Checks a password against the account's budget of failed checks, kept by email (an unknown email has one
   * too, so the answers say nothing of which accounts exist). The point is taken before the slow hash (guesses
   * sent at once are all counted) and given back when the password matches. Past the budget: 429, unchecked.
   */
  private async checkPassword(email: string, account: AccountRow | undefined, password: string, http: GatewayHttp | undefined): Promise<boolean> {
    const key = email.trim().toLowerCase();
    const budget = await this.failures.take(key);
    if (!budget.allowed) {
      http?.rateLimit(budget.headers);
      throw new AppError(
        "rate_limited",
        `more than ${this.limits.accountLimit} failed passwords for this account in ${accountWindowSeconds / 60} minutes; retry after ${budget.headers["Retry-After"]} s`,
      );
    }
    const hash = account?.passwordHash ?? (await (this.decoy ??= Bun.password.hash("decoy password, never matches", { algorithm: "argon2id" })));
    const matches = (await Bun.password.verify(password, hash)) && !!account?.passwordHash;
    http?.rateLimit(matches ? await this.failures.giveBack(key) : budget.headers);
    return matches;
  }

  /** The account's sessions that are neither ended, expired nor idle too long. */
  private live(accountId: string): Promise<SessionRow[]> {
    const now = nowSeconds();
    return this.repo.list(accountId, now, now - this.idleSeconds);
  }

  /** A session as listed; `expiresAt` is when it ends if unused from its last use: its lifetime or idle time. */
  private view(s: SessionRow, currentId: string | null) {
    const lastUsedAt = s.lastUsedAt === null ? null : Number(s.lastUsedAt);
    return {
      id: s.id,
      createdAt: Number(s.createdAt),
      expiresAt: Math.min(Number(s.expiresAt), (lastUsedAt ?? Number(s.createdAt)) + this.idleSeconds),
      lastUsedAt,
      userAgent: s.userAgent,
      address: s.address,
      current: s.id === currentId,
    };
  }

  // A personal key signs in as its account; a connected client's key never does (it is not the person).
  private async personalKeyAccount(key: string, now: number): Promise<string | null> {
    const row = await this.keys.useKey(hashKey(key), now);
    return row?.keyKind === "personal" ? row.accountId : null;
  }
}

function cookie(token: string, maxAge: number, secure: boolean): string {
  return `${sessionCookie}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** The value of one cookie in a Cookie header, or null. */
export function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
