import { expect, test } from "bun:test";
import { retryDelay, subjectMatches } from "./bus.ts";

test.each([
  ["item.>", "item.created", true],
  ["item.>", "item", false],
  ["item.*", "item.created", true],
  ["item.*", "item.created.x", false],
  ["*.created", "item.created", true],
  ["item.created", "item.created", true],
  ["item.created", "item.updated", false],
  [">", "a.b.c", true],
])("subject filter %s on %s -> %s", (filter, subject, want) => {
  expect(subjectMatches(filter, subject)).toBe(want);
});

test("retry delays repeat their last value", () => {
  expect([1, 2, 3, 9].map((a) => retryDelay([10, 20, 30], a))).toEqual([10, 20, 30, 30]);
});
