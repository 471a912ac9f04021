// Requests per credential (or per IP without one) per 60 s, with the IETF RateLimit headers. The same limiter,
// under other policy names, counts failed key lookups per IP (accounts.service.ts), sign-in starts per IP and
// failed password checks per account (sessions.service.ts).
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export const windowSeconds = 60;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

export class RateLimiter {
  private readonly limiter: RateLimiterMemory;
  readonly policy: string;

  constructor(
    limit: number,
    private readonly name = "default",
    window = windowSeconds,
  ) {
    this.limiter = new RateLimiterMemory({ points: limit, duration: window });
    this.policy = `"${name}";q=${limit};w=${window}`;
  }

  async take(key: string): Promise<RateDecision> {
    try {
      const res = await this.limiter.consume(key);
      return { allowed: true, headers: this.headers(res) };
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const headers = this.headers(res);
      headers["Retry-After"] = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
      return { allowed: false, headers };
    }
  }

  /** Returns one point taken by take() (the thing it was reserved for did not happen); the headers after it. */
  async giveBack(key: string): Promise<Record<string, string>> {
    return this.headers(await this.limiter.reward(key, 1));
  }

  private headers(res: RateLimiterRes): Record<string, string> {
    const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return { "RateLimit-Policy": this.policy, RateLimit: `"${this.name}";r=${Math.max(0, res.remainingPoints)};t=${reset}` };
  }
}
