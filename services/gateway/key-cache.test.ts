// Unit: the key cache alone (no database, no bus).
import { expect, test } from "bun:test";
import type { Caller } from "@trove/contracts";
import { KeyCache } from "./key-cache.ts";

const caller = (keyId: string): Caller => ({
  accountId: "acct",
  keyId,
  keyKind: "client",
  access: "read_write",
  scope: null,
  plan: { name: "default", linkLimit: 100, limitScope: "lifetime" },
});

test("unknown keys never push out found ones, however many", () => {
  const cache = new KeyCache({ found: 2, missing: 3, ttlMs: 1_000 });
  cache.setFound("good", caller("k1"), 0);
  for (let i = 0; i < 10_000; i++) cache.setMissing(`bad${i}`, 0);
  expect(cache.get("good", 1)?.keyId).toBe("k1");
  expect(cache.size).toEqual({ found: 1, missing: 3 });
  expect(cache.get("bad9999", 1)).toBeNull();
  expect(cache.get("bad0", 1)).toBeUndefined(); // the oldest unknown ones went
});

test("a full cache drops its least recently used key, not everything", () => {
  const cache = new KeyCache({ found: 2, missing: 2, ttlMs: 1_000 });
  cache.setFound("a", caller("ka"), 0);
  cache.setFound("b", caller("kb"), 0);
  expect(cache.get("a", 1)?.keyId).toBe("ka"); // a is now the most recent
  cache.setFound("c", caller("kc"), 1);
  expect(cache.get("b", 2)).toBeUndefined();
  expect(cache.get("a", 2)?.keyId).toBe("ka");
  expect(cache.get("c", 2)?.keyId).toBe("kc");
});

test("answers expire", () => {
  const cache = new KeyCache({ found: 2, missing: 2, ttlMs: 1_000 });
  cache.setFound("a", caller("ka"), 0);
  cache.setMissing("x", 0);
  expect(cache.get("a", 999)?.keyId).toBe("ka");
  expect(cache.get("a", 1_000)).toBeUndefined();
  expect(cache.get("x", 1_000)).toBeUndefined();
});

test("a revoked key is dropped, and a lookup that raced the revocation is not cached", () => {
  const cache = new KeyCache({ found: 10, missing: 10, ttlMs: 1_000 });
  cache.setFound("a", caller("ka"), 0);
  cache.setFound("b", caller("kb"), 0);
  cache.dropKey("ka", 1);
  expect(cache.get("a", 2)).toBeUndefined();
  expect(cache.get("b", 2)?.keyId).toBe("kb");
  expect(cache.setFound("a", caller("ka"), 3)).toBe(false);
  expect(cache.get("a", 4)).toBeUndefined();
});
