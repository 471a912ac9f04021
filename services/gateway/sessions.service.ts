// Browser sessions: sign-in with email and password (or a personal key), the HttpOnly cookie, the session's CSRF
// token, listing and ending sessions, and setting the password. A session acts as its account's personal key.
// Passwords are hashed with argon2id (Bun.password, off the event loop); tokens are random, the cookie's kept as
// SHA-256 only. Sign-in starts are budgeted per address (the spec's 10 per 60 s).
import type { Caller, GatewayHttp } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import { hashKey } from "./accounts.service.ts";
import type { AccountsRepository } from "./accounts.repository.ts";
import { RateLimiter } from "./ratelimit.ts";
import type { SessionRow, SessionsRepository } from "./sessions.repository.ts";

export const sessionCookie = "trove_session";
export const csrfHeader = "x-csrf-token";

const tokenPrefix = "trove_s_";
const wrongCredentials = "the email and password (or key) do not match an account";

export interface SessionCheck {
  caller: Caller;
  sessionId: string;
  csrfToken: string;
}

export class SessionsService {
  private readonly starts: RateLimiter;
  // Compared against when the email is unknown, so a wrong email costs the same time as a wrong password.
  private decoy: Promise<string> | null = null;

  constructor(
    private readonly repo: SessionsRepository,
    private readonly keys: AccountsRepository,
    private readonly log: Logger,
    private readonly ttlHours: number,
    private readonly signInLimit: number,
  ) {
    this.starts = new RateLimiter(signInLimit, "sign-in");
  }

  async signIn(body: { email?: string; password?: string; key?: string }, http: GatewayHttp) {
    const byKey = body.key !== undefined;
    if (byKey === (body.email !== undefined || body.password !== undefined) || (!byKey && (body.email === undefined || body.password === undefined))) {
      throw new AppError("validation_failed", "send email and password, or key", { fields: { body: "email and password, or key" } });
    }
    const budget = await this.starts.take(http.address);
    if (!budget.allowed) {
      throw new AppError("rate_limited", `more than ${this.signInLimit} sign-in attempts from this address in 60 s; retry after ${budget.headers["Retry-After"]} s`);
    }
    const now = nowSeconds();
    const accountId = byKey ? await this.personalKeyAccount(body.key!, now) : await this.passwordAccount(body.email!, body.password!);
    if (!accountId) throw new AppError("unauthorized", wrongCredentials);
    const account = (await this.repo.account(accountId))!;
    const token = tokenPrefix + randomToken(32);
    const session = await this.repo.create({
      id: newId(),
      accountId,
      tokenHash: hashKey(token),
      csrfToken: randomToken(24),
      now,
      expiresAt: now + this.ttlHours * 3600,
      userAgent: http.userAgent?.slice(0, 500) ?? null,
      address: http.address,
    });
    http.setCookie(cookie(token, this.ttlHours * 3600, http.secure));
    this.log.info({ account: accountId, session: session.id }, "signed in");
    return { account: { email: account.email, plan: account.plan }, session: view(session, session.id), csrfToken: session.csrfToken };
  }

  /** The caller a session cookie stands for, with its CSRF token; null for an unknown, ended or expired one. */
  async authenticate(token: string): Promise<SessionCheck | null> {
    if (!token.startsWith(tokenPrefix) || token.length > 200) return null;
    const row = await this.repo.use(hashKey(token), nowSeconds());
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
    const session = http?.sessionId ? (await this.repo.list(caller.accountId, nowSeconds())).find((s) => s.id === http.sessionId) : undefined;
    return {
      // A connected client acts for the person but is not them: it is not told their email.
      account: { email: caller.keyKind === "personal" ? account.email : null, plan: account.plan },
      session: session ? view(session, session.id) : null,
      csrfToken: session?.csrfToken ?? null,
    };
  }

  /** Ends the session the cookie names (if it is live) and clears the cookie. */
  async signOut(http: GatewayHttp | undefined) {
    if (http?.sessionToken) {
      const row = await this.repo.use(hashKey(http.sessionToken), nowSeconds());
      if (row) await this.repo.revoke(row.accountId, row.id, nowSeconds());
    }
    http?.setCookie(cookie("", 0, http.secure));
    return { ok: true };
  }

  async list(caller: Caller, http: GatewayHttp | undefined) {
    const sessions = await this.repo.list(caller.accountId, nowSeconds());
    return { sessions: sessions.map((s) => view(s, http?.sessionId ?? null)) };
  }

  async revoke(caller: Caller, id: string) {
    if (!(await this.repo.revoke(caller.accountId, id, nowSeconds()))) throw new AppError("not_found", "no such live session");
    return { ok: true, id };
  }

  /** Sets the password; every other session of the account ends (the one making the change stays). */
  async setPassword(caller: Caller, password: string, http: GatewayHttp | undefined) {
    await this.repo.setPassword(caller.accountId, await Bun.password.hash(password, { algorithm: "argon2id" }));
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

  private async passwordAccount(rawEmail: string, password: string): Promise<string | null> {
    const account = await this.repo.accountByEmail(rawEmail.trim().toLowerCase());
    const hash = account?.passwordHash ?? (await (this.decoy ??= Bun.password.hash("decoy password, never matches", { algorithm: "argon2id" })));
    const matches = await Bun.password.verify(password, hash);
    return account?.passwordHash && matches ? account.id : null;
  }

  // A personal key signs in as its account; a connected client's key never does (it is not the person).
  private async personalKeyAccount(key: string, now: number): Promise<string | null> {
    const row = await this.keys.useKey(hashKey(key), now);
    return row?.keyKind === "personal" ? row.accountId : null;
  }
}

function view(s: SessionRow, currentId: string | null) {
  return {
    id: s.id,
    createdAt: Number(s.createdAt),
    expiresAt: Number(s.expiresAt),
    lastUsedAt: s.lastUsedAt === null ? null : Number(s.lastUsedAt),
    userAgent: s.userAgent,
    address: s.address,
    current: s.id === currentId,
  };
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
