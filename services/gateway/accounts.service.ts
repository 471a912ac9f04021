// Bearer-key authentication and account seeding from TROVE_SEED_ACCOUNTS.
import type { SeedAccount } from "@trove/config";
import type { Caller } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import type { Logger } from "@trove/log";
import type { AccountsRepository } from "./accounts.repository.ts";

/** Keys are stored only as SHA-256: a database leak does not leak usable keys. */
export const hashKey = (key: string): string => new Bun.CryptoHasher("sha256").update(key).digest("hex");

const cacheTtlMs = 30_000;
const cacheMax = 10_000;

export class AccountsService {
  // Every request authenticates; a short cache keeps that off the database on the hot path.
  private cache = new Map<string, { caller: Caller | null; until: number }>();

  constructor(
    private readonly repo: AccountsRepository,
    private readonly log: Logger,
  ) {}

  /** The caller a bearer key stands for, or null when the key is unknown or revoked. */
  async authenticate(key: string): Promise<Caller | null> {
    const hash = hashKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.caller;
    const row = await this.repo.findKey(hash);
    const caller: Caller | null = row
      ? {
          accountId: row.accountId,
          keyId: row.keyId,
          keyKind: row.keyKind,
          access: row.access,
          scope: row.scope,
          plan: { name: row.plan, linkLimit: row.linkLimit, limitScope: row.limitScope },
        }
      : null;
    if (this.cache.size >= cacheMax) this.cache.clear();
    this.cache.set(hash, { caller, until: now + cacheTtlMs });
    return caller;
  }

  /** Forgets cached lookups (after a key is revoked). */
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
