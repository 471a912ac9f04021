// Requests per credential (or per IP without one) per 60 s, with the IETF RateLimit headers.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export const windowSeconds = 60;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

export class RateLimiter {
  private readonly limiter: RateLimiterMemory;
  readonly policy: string;

  constructor(limit: number) {
    this.limiter = new RateLimiterMemory({ points: limit, duration: windowSeconds });
    this.policy = `"default";q=${limit};w=${windowSeconds}`;
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

  private headers(res: RateLimiterRes): Record<string, string> {
    const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return { "RateLimit-Policy": this.policy, RateLimit: `"default";r=${Math.max(0, res.remainingPoints)};t=${reset}` };
  }
}
