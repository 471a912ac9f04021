// Requests per credential (or per IP without one) per 60 s, with the IETF RateLimit headers. The same limiter,
// under other policy names, counts failed key lookups per IP (accounts.service.ts), sign-in starts per IP and
// failed password checks per account (sessions.service.ts).
// Where the gateway's database is PostgreSQL (the distributed deployment, any number of gateway replicas) the counts
// live in the table gateway.rate_limits, so the replicas share one budget: each take is one upsert. In the embedded
// deployment (PGlite, one process) they live in memory. When PostgreSQL fails a statement, that take is counted in
// this process's memory instead (the library's insurance idea, kept by hand so the caller knows), so a database
// hiccup does not refuse every request.
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Database } from "@trove/db";
import type { Logger } from "@trove/log";

export const windowSeconds = 60;

/**
 * Points that mark a credential's count as revoked (see revocationMark): far above any budget, and far enough below
 * int4's limit for the takes that follow it.
 */
const revokedPoints = 1_000_000_000;

/** Keys longer than this are counted under their SHA-256 (an email is the client's to choose). */
const longKey = 200;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** The credential was revoked by some gateway replica (its shared count carries the mark). */
  revoked?: true;
  /** The shared count could not be read (a database error): this process's memory answered. */
  local?: true;
}

/** The count of requests a credential (a key, a session) makes. */
export const credentialRateKey = (keyId: string) => `key:${keyId}`;

/**
 * Where the counts are kept: shared in PostgreSQL, or (without a pool) in each limiter's memory. One per gateway, so
 * that a database failure is logged once, not once per request.
 */
export class RateStore {
  private failing = false;

  private constructor(
    readonly pool: NonNullable<Database["pool"]> | undefined,
    private readonly log: Logger | undefined,
  ) {}

  /** Shared counts on a PostgreSQL database; memory on PGlite (one process: nothing to share). */
  static for(database: Pick<Database, "pool">, log: Logger): RateStore {
    return new RateStore(database.pool, log);
  }

  static memory(): RateStore {
    return new RateStore(undefined, undefined);
  }

  get shared(): boolean {
    return this.pool !== undefined;
  }

  failed(err: unknown) {
    if (this.failing) return;
    this.failing = true;
    this.log?.warn({ err }, "rate limits: the shared count failed; counting in this process until it answers again");
  }

  answered() {
    if (!this.failing) return;
    this.failing = false;
    this.log?.info("rate limits: shared again");
  }
}

export class RateLimiter {
  /** In memory: the count itself, or its stand-in while the shared one fails. */
  private readonly memory: RateLimiterMemory;
  private readonly shared: RateLimiterPostgres | undefined;
  readonly policy: string;

  constructor(
    limit: number,
    private readonly name = "default",
    window = windowSeconds,
    private readonly store: RateStore = RateStore.memory(),
  ) {
    this.memory = new RateLimiterMemory({ points: limit, duration: window, keyPrefix: name });
    if (store.pool) {
      this.shared = new RateLimiterPostgres({
        storeClient: store.pool,
        storeType: "pool",
        schemaName: "gateway",
        tableName: "rate_limits",
        // The gateway's migration made the table: the library runs no DDL of its own.
        tableCreated: true,
        keyPrefix: name,
        points: limit,
        duration: window,
        // A key past its budget is refused from this process's memory until its window ends: a client hammering
        // the gateway costs the database at most one statement more per window and replica, not one per request.
        inMemoryBlockOnConsumed: limit + 1,
        // Only the per-request limiter sweeps the expired rows of the one table (every five minutes, rows past their
        // window by an hour): the others would repeat the same delete.
        clearExpiredByTimeout: name === "default",
      });
    }
    this.policy = `"${name}";q=${limit};w=${window}`;
  }

  async take(key: string): Promise<RateDecision> {
    const { res, allowed, local } = await this.run((l) => l.consume(countKey(key)));
    if (!local && res.consumedPoints >= revokedPoints) return { allowed: true, headers: {}, revoked: true };
    const headers = this.headers(res);
    if (!allowed) headers["Retry-After"] = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    return { allowed, headers, ...(local ? { local: true as const } : {}) };
  }

  /** Returns one point taken by take() (the thing it was reserved for did not happen); the headers after it. */
  async giveBack(key: string): Promise<Record<string, string>> {
    return this.headers((await this.run((l) => l.reward(countKey(key), 1))).res);
  }

  /**
   * The row that marks a credential revoked on its shared count, to be written in the revocation's transaction
   * (undefined with memory counts: one process, which drops the key itself). The next take() of that credential on
   * any replica sees it (`revoked`), whatever that replica heard on the bus. It lasts `forMs`: until every cache
   * entry read before the revocation has ended.
   */
  revocationMark(key: string, forMs: number): { key: string; points: number; expire: number } | undefined {
    if (!this.shared) return undefined;
    return { key: this.shared.getKey(countKey(key)), points: revokedPoints, expire: Date.now() + forMs };
  }

  private async run(op: (l: RateLimiterAbstract) => Promise<RateLimiterRes>): Promise<{ res: RateLimiterRes; allowed: boolean; local: boolean }> {
    let local = false;
    if (this.shared) {
      try {
        const res = await op(this.shared);
        this.store.answered();
        return { res, allowed: true, local };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          this.store.answered();
          return { res: err, allowed: false, local };
        }
        this.store.failed(err);
        local = true;
      }
    }
    try {
      return { res: await op(this.memory), allowed: true, local };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return { res: err, allowed: false, local };
    }
  }

  private headers(res: RateLimiterRes): Record<string, string> {
    const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return { "RateLimit-Policy": this.policy, RateLimit: `"${this.name}";r=${Math.max(0, res.remainingPoints)};t=${reset}` };
  }
}

function countKey(key: string): string {
  return key.length <= longKey ? key : `sha256:${new Bun.CryptoHasher("sha256").update(key).digest("hex")}`;
}
