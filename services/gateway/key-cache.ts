// What this gateway process knows about bearer keys, so that most requests cost no database query. Keys that
// were found and keys that were not live apart, each bounded on its own: however many unknown keys arrive, they
// can only push out other unknown keys, never a good key.
import type { Caller } from "@trove/contracts";

export interface KeyCacheLimits {
  /** Keys found, kept at most (the least recently used goes first). */
  found: number;
  /** Keys not found, kept at most (the oldest goes first). */
  missing: number;
  /** How long an answer is trusted; a revocation does not wait for it (see dropKey). */
  ttlMs: number;
}

export const defaultKeyCacheLimits: KeyCacheLimits = { found: 10_000, missing: 10_000, ttlMs: 30_000 };

interface Entry<T> {
  value: T;
  until: number;
}

export class KeyCache {
  // A Map iterates in insertion order: re-inserting on a hit makes the first entry the least recently used.
  private readonly found = new Map<string, Entry<Caller>>();
  private readonly missing = new Map<string, Entry<true>>();
  /** Key ids revoked lately: a lookup that read the row before the revocation must not cache it afterwards. */
  private readonly revoked = new Map<string, number>();

  constructor(private readonly limits: KeyCacheLimits = defaultKeyCacheLimits) {}

  /** The caller for a key hash, null when known to name no live key, undefined when the database must say. */
  get(hash: string, now = Date.now()): Caller | null | undefined {
    const hit = this.found.get(hash);
    if (hit) {
      this.found.delete(hash);
      if (hit.until <= now) return undefined;
      this.found.set(hash, hit);
      return hit.value;
    }
    const miss = this.missing.get(hash);
    if (miss) {
      if (miss.until > now) return null;
      this.missing.delete(hash);
    }
    return undefined;
  }

  /** Remembers a live key; false (and nothing kept) when its key was revoked while it was being looked up. */
  setFound(hash: string, caller: Caller, now = Date.now()): boolean {
    const revokedUntil = this.revoked.get(caller.keyId);
    if (revokedUntil !== undefined && revokedUntil > now) return false;
    this.missing.delete(hash);
    this.found.delete(hash);
    this.found.set(hash, { value: caller, until: now + this.limits.ttlMs });
    evictOldest(this.found, this.limits.found);
    return true;
  }

  /** Remembers a hash that names no live key. */
  setMissing(hash: string, now = Date.now()): void {
    this.missing.delete(hash);
    this.missing.set(hash, { value: true, until: now + this.limits.ttlMs });
    evictOldest(this.missing, this.limits.missing);
  }

  /** Forgets a revoked key at once (matched by key id: the broadcast carries no key material). */
  dropKey(keyId: string, now = Date.now()): void {
    for (const [hash, entry] of this.found) if (entry.value.keyId === keyId) this.found.delete(hash);
    this.revoked.set(keyId, now + this.limits.ttlMs);
    for (const [id, until] of this.revoked) if (until <= now) this.revoked.delete(id);
    evictOldest(this.revoked, this.limits.found);
  }

  clear(): void {
    this.found.clear();
    this.missing.clear();
  }

  get size(): { found: number; missing: number } {
    return { found: this.found.size, missing: this.missing.size };
  }
}

function evictOldest(map: Map<string, unknown>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value!);
}
