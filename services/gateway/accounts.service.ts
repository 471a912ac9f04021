// Bearer-key authentication (a per-process cache, a per-address budget of failed lookups, revocations heard from
// every gateway over the bus) and account seeding from TROVE_SEED_ACCOUNTS.
import type { SeedAccount } from "@trove/config";
import type { Caller } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import type { Bus, Subscription } from "@trove/bus";
import type { Logger } from "@trove/log";
import type { AccountsRepository } from "./accounts.repository.ts";
import { KeyCache, defaultKeyCacheLimits, type KeyCacheLimits } from "./key-cache.ts";
import { RateLimiter, credentialRateKey, type RateDecision, type RateStore } from "./ratelimit.ts";

/** Keys are stored only as SHA-256: a database leak does not leak usable keys. */
export const hashKey = (key: string): string => new Bun.CryptoHasher("sha256").update(key).digest("hex");

/** Broadcast subject on which a revoked key's id reaches every gateway process. */
export const keyRevokedSubject = "gateway.key-revoked";

/** Failed key lookups (database queries that found nothing) one address may cause per 60 s. */
export const failedLookupsPerAddress = 30;

/**
 * The answer to a bearer key: its caller (null: no live key; `cached` when this process's cache answered, not the
 * database), or refused before any database query.
 */
export type KeyCheck = { caller: Caller | null; cached?: true } | { refused: RateDecision };

/** A revocation's mark must outlast every cache entry read before it, on replicas whose clocks differ a little. */
const markMarginMs = 5 * 60_000;

export interface AccountsOptions {
  cache?: KeyCacheLimits;
  failedLookupsPerAddress?: number;
  /** Where failed lookups are counted (shared by the replicas on PostgreSQL); memory by default. */
  rateStore?: RateStore;
  /** The per-request limiter, whose count of a key carries its revocation mark (see revocationMark). */
  requests?: RateLimiter;
}

export class AccountsService {
  // Every request authenticates; the cache keeps that off the database on the hot path.
  private readonly cache: KeyCache;
  private readonly failures: RateLimiter;
  private readonly cacheTtlMs: number;
  private readonly requests: RateLimiter | undefined;
  /** Database lookups made so far (tests and diagnostics). */
  lookups = 0;

  constructor(
    private readonly repo: AccountsRepository,
    private readonly log: Logger,
    opts: AccountsOptions = {},
  ) {
    const limits = opts.cache ?? defaultKeyCacheLimits;
    this.cache = new KeyCache(limits);
    this.cacheTtlMs = limits.ttlMs;
    this.requests = opts.requests;
    this.failures = new RateLimiter(opts.failedLookupsPerAddress ?? failedLookupsPerAddress, "failed-keys", undefined, opts.rateStore);
  }

  /**
   * The caller a bearer key stands for. A key the cache cannot answer costs one database query, and only while
   * the address it came from has failed lookups left: its point is taken before the query and given back when
   * the key is found, so a flood of made-up keys costs at most that many queries a minute per address.
   * `fresh` skips the cache: the database decides (the gateway asks so when the cache may hold a key revoked by
   * another replica).
   */
  async authenticate(key: string, from: string, opts: { fresh?: boolean } = {}): Promise<KeyCheck> {
    const hash = hashKey(key);
    const cached = opts.fresh ? undefined : this.cache.get(hash);
    if (cached !== undefined) return cached === null ? { caller: null } : { caller: cached, cached: true };
    const budget = await this.failures.take(from);
    if (!budget.allowed) return { refused: budget };
    this.lookups++;
    const row = await this.repo.useKey(hash, nowSeconds());
    if (!row) {
      this.cache.setMissing(hash);
      return { caller: null };
    }
    await this.failures.giveBack(from);
    const caller: Caller = {
      accountId: row.accountId,
      keyId: row.keyId,
      keyKind: row.keyKind,
      access: row.access,
      scope: row.scope,
      plan: { name: row.plan, linkLimit: row.linkLimit, limitScope: row.limitScope },
    };
    // Revoked while the query ran: the row was read just before the revocation.
    return { caller: this.cache.setFound(hash, caller) ? caller : null };
  }

  /**
   * Follows revocations made by any gateway process, this one included. A revocation broadcast while this process
   * was disconnected from the bus is lost, so on reconnecting it forgets every cached lookup.
   */
  listen(bus: Bus): Subscription {
    const revocations = bus.listen(keyRevokedSubject, (data) => {
      const keyId = (data as { keyId?: unknown }).keyId;
      if (typeof keyId === "string") this.cache.dropKey(keyId);
    });
    const reconnects = bus.onReconnect(() => this.invalidate());
    return {
      stop: async () => {
        await revocations.stop();
        await reconnects.stop();
      },
    };
  }

  /**
   * The row a key's revocation writes on the key's shared request count, in the revocation's transaction (undefined
   * when counts are not shared: one process). Every replica's next request with the key reads it, whether or not
   * that replica heard the broadcast.
   */
  revocationMark(keyId: string) {
    return this.requests?.revocationMark(credentialRateKey(keyId), this.cacheTtlMs + markMarginMs);
  }

  /** Forgets a key another replica revoked (its count carried the mark); lookups in flight do not cache it either. */
  forget(keyId: string) {
    this.cache.dropKey(keyId);
  }

  /** Forgets a revoked key here at once, then tells every other gateway process. */
  async revoked(bus: Bus, keyId: string): Promise<void> {
    this.cache.dropKey(keyId);
    await bus.broadcast(keyRevokedSubject, { keyId });
  }

  /** Forgets every cached lookup (after seeding, and after a bus reconnect). */
  invalidate() {
    this.cache.clear();
  }

  /** Ensures each seeded account exists with its personal key and plan. Idempotent. */
  async seed(accounts: SeedAccount[]): Promise<void> {
    for (const a of accounts) {
      const now = nowSeconds();
      const accountId = await this.repo.upsertAccount({ id: newId(), email: a.email, plan: a.plan, linkLimit: a.linkLimit, limitScope: a.limitScope, now });
      const holder = await this.repo.ensureKey({
        id: newId(),
        accountId,
        kind: "personal",
        name: "seeded personal key",
        keyHash: hashKey(a.apiKey),
        access: "read_write",
        now,
      });
      if (holder !== accountId) this.log.warn({ email: a.email }, "seeded key already belongs to another account; skipped");
    }
    this.invalidate();
  }
}
