import { describe, expect, test } from "bun:test";
import { fuseRanks } from "./fusion.ts";

const list = (...ids: string[]) => ids.map((id) => ({ id }));

describe("fuseRanks", () => {
  test("found by both lists ranks above found by one; scores are weight / (60 + rank)", () => {
    const fused = fuseRanks([
      { ranked: list("a", "b"), weight: 1 },
      { ranked: list("c", "b"), weight: 1 },
    ]);
    expect(fused.map((f) => f.id)).toEqual(["b", "a", "c"]);
    expect(fused[0]!.score).toBeCloseTo(2 / 62);
    expect(fused[1]!.score).toBeCloseTo(1 / 61);
  });

  test("equal scores go to the earlier list, then the better rank, whatever the ids", () => {
    expect(fuseRanks([{ ranked: list("z"), weight: 1 }, { ranked: list("a"), weight: 1 }]).map((f) => f.id)).toEqual(["z", "a"]);
    expect(fuseRanks([{ ranked: list(), weight: 1 }, { ranked: list("y", "x"), weight: 1 }]).map((f) => f.id)).toEqual(["y", "x"]);
  });

  test("weights scale a list's contribution", () => {
    expect(fuseRanks([{ ranked: list("a"), weight: 1 }, { ranked: list("b"), weight: 3 }]).map((f) => f.id)).toEqual(["b", "a"]);
  });
});
