import { describe, expect, test } from "bun:test";
import { scopeMatches, typeForReader, type ItemScope } from "./events.ts";

const s = (tagSlugs: string[], collectionIds: string[] = []): ItemScope => ({ status: "stashed", tagSlugs, collectionIds });

describe("scope matching for readers", () => {
  test("a tag filter matches any of its tags; a collection filter its collection; both must hold", () => {
    expect(scopeMatches(s(["a", "b"]), { tagSlugs: ["b", "z"] })).toBe(true);
    expect(scopeMatches(s(["a"]), { tagSlugs: ["z"] })).toBe(false);
    expect(scopeMatches(s([], ["c1"]), { collectionId: "c1" })).toBe(true);
    expect(scopeMatches(s(["a"], ["c2"]), { tagSlugs: ["a"], collectionId: "c1" })).toBe(false);
    expect(scopeMatches(null, null)).toBe(false);
    expect(scopeMatches(s([]), null)).toBe(true);
  });

  test("leaving the scope reads as item.removed_from_scope; unrelated events are hidden", () => {
    const f = { tagSlugs: ["a"] };
    expect(typeForReader("item.untagged", s(["a"]), s([]), f)).toBe("item.removed_from_scope");
    expect(typeForReader("item.tagged", s([]), s(["a"]), f)).toBe("item.tagged");
    expect(typeForReader("item.updated", s(["b"]), s(["b"]), f)).toBeNull();
    expect(typeForReader("item.deleted", s(["a"]), null, f)).toBe("item.deleted");
    expect(typeForReader("item.deleted", s(["b"]), null, f)).toBeNull();
    expect(typeForReader("item.created", null, s(["a"]), f)).toBe("item.created");
    expect(typeForReader("item.updated", s(["b"]), s(["b"]), null)).toBe("item.updated");
  });

  test("several filters must all hold: leaving any one of them is leaving the scope", () => {
    const both = [{ tagSlugs: ["a"] }, { collectionId: "c1" }];
    expect(typeForReader("item.tagged", s([], ["c1"]), s(["a"], ["c1"]), both)).toBe("item.tagged");
    expect(typeForReader("item.collection_removed", s(["a"], ["c1"]), s(["a"]), both)).toBe("item.removed_from_scope");
    expect(typeForReader("item.updated", s(["a"]), s(["a"]), both)).toBeNull();
    expect(typeForReader("item.updated", s(["a"]), s(["a"]), [])).toBe("item.updated");
  });
});
