import { describe, expect, test } from "bun:test";
import { holds, operations, permits, type Caller } from "./index.ts";

const caller = (over: Partial<Caller>): Caller => ({
  accountId: "a",
  keyId: "k",
  keyKind: "client",
  access: "read_write",
  scope: null,
  plan: { name: "pro", linkLimit: 100, limitScope: "lifetime" },
  ...over,
});

describe("holds", () => {
  test("a personal key holds everything", () => {
    const me = caller({ keyKind: "personal" });
    for (const p of ["notes.write", "clients.manage", "changes.read", "projects.write"] as const) expect(holds(me, p, "POST")).toBe(true);
  });

  test("a client key holds notes and projects unless it is scoped to a tag or a collection", () => {
    for (const p of ["notes.read", "notes.write", "projects.read", "projects.write"] as const) {
      expect(holds(caller({}), p, "POST")).toBe(true);
      expect(holds(caller({ scope: { tagSlugs: ["a"] } }), p, "GET")).toBe(false);
      expect(holds(caller({ scope: { collectionId: "c" } }), p, "GET")).toBe(false);
      // An empty scope confines nothing.
      expect(holds(caller({ scope: { tagSlugs: [] } }), p, "GET")).toBe(true);
    }
    expect(holds(caller({ scope: { tagSlugs: ["a"] } }), "items.read", "GET")).toBe(true);
  });

  test("a read-only key reads (not source settings); personal-only permissions stay personal", () => {
    const ro = caller({ access: "read_only" });
    expect(holds(ro, "notes.read", "GET")).toBe(true);
    expect(holds(ro, "notes.write", "POST")).toBe(false);
    expect(holds(ro, "sources.write", "GET")).toBe(false);
    expect(holds(caller({}), "webhooks.manage", "GET")).toBe(false);
  });

  test("permits: a scoped key calls nothing that changes the whole library or the definitions scopes are made of", () => {
    const scoped = [caller({ scope: { tagSlugs: ["a"] } }), caller({ scope: { collectionId: "c" } })];
    for (const name of ["createImport", "createTag", "updateTag", "deleteTag", "createCollection"] as const) {
      for (const c of scoped) expect({ name, allowed: permits(c, operations[name]) }).toEqual({ name, allowed: false });
      expect({ name, allowed: permits(caller({}), operations[name]) }).toEqual({ name, allowed: true });
    }
    // Its own items it lists, saves and changes.
    for (const name of ["listTags", "listCollections", "ingest", "updateItem"] as const) {
      for (const c of scoped) expect({ name, allowed: permits(c, operations[name]) }).toEqual({ name, allowed: true });
    }
  });

  test("permits: an operation without a permission is open to any caller", () => {
    expect(permits(caller({ access: "read_only", scope: { tagSlugs: ["a"] } }), { permission: null, method: "POST" })).toBe(true);
    expect(permits(caller({ scope: { tagSlugs: ["a"] } }), { permission: "notes.read", method: "GET" })).toBe(false);
  });
});
