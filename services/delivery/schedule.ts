// The retry policy as data: attempts follow TROVE_WEBHOOK_RETRY_DELAYS with jitter, at most five of them, and a
// receiver's Retry-After may stretch a wait (never shorten it) up to an hour.
export const maxAttempts = 5;
/** A Retry-After beyond this is cut to it: a receiver cannot park a delivery for days. */
export const maxRetryAfterMs = 3_600_000;
/** Each wait is the scheduled one times a factor in [1 - jitter, 1 + jitter], so retries of a burst spread out. */
export const jitter = 0.2;

export interface RetryPolicy {
  /** Seconds before attempts 2, 3, ... (fewer values: fewer attempts). */
  delaysSeconds: number[];
}

/** How many attempts a delivery gets under this policy. */
export function attemptsAllowed(p: RetryPolicy): number {
  return Math.min(maxAttempts, p.delaysSeconds.length + 1);
}

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed at `now`, or null when that was the last one.
 * `retryAfterMs` is what the receiver asked for, if anything.
 */
export function nextAttemptAt(p: RetryPolicy, attempt: number, now: number, retryAfterMs: number | null, random = Math.random): number | null {
  if (attempt >= attemptsAllowed(p)) return null;
  const scheduled = p.delaysSeconds[attempt - 1]! * 1000 * (1 - jitter + 2 * jitter * random());
  const asked = retryAfterMs === null ? 0 : Math.min(retryAfterMs, maxRetryAfterMs);
  return now + Math.round(Math.max(scheduled, asked));
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
