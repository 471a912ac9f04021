import { describe, expect, test } from "bun:test";
import { operations, subjectOf, type OperationName } from "./index.ts";

describe("the contract table", () => {
  const entries = Object.entries(operations) as [OperationName, (typeof operations)[OperationName]][];

  test("every route is unique", () => {
    const routes = entries.map(([, o]) => `${o.method} ${o.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  test("every path is under /api and only health, sign-in and sign-out are public", () => {
    const open: string[] = [];
    for (const [name, o] of entries) {
      expect(o.path.startsWith("/api/")).toBe(true);
      if (o.permission === null) open.push(name);
    }
    expect(open.sort()).toEqual(["createSession", "deleteSession", "health"]);
  });

  test("subjects name the owning service", () => {
    expect(subjectOf("getItem")).toBe("items.getItem");
    expect(subjectOf("health")).toBe("gateway.health");
  });
});
