// Real: every service in-process (PGlite in the data directory + the in-process bus, or PostgreSQL + NATS),
// driven over HTTP, restarted on the same data as a process restart would. The search index follows item events
// from a durable position: a change whose index update could not be written before a restart is still found after
// it, though the index is not empty (so no rebuild from scratch covers for it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acceptWrites, eventually, refuseWrites, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { persistent: true });
});
afterAll(() => trove.stop());

const page = (title: string, body: string) => `<article><h1>${title}</h1><p>${body}</p></article>`;
const save = async (url: string, title: string, body: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url, html: page(title, body) } });
  expect(res.status).toBe(200);
  return (await res.json()).id as string;
};
const found = async (q: string): Promise<string[]> => {
  const res = await trove.api(`/api/items/search?mode=lexical&q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return (await res.json()).items.map((i: { id: string }) => i.id);
};

describe("the items search index across a restart", () => {
  test("a save and a title change whose index updates failed before the restart are found after it", async () => {
    // The index is in use: a rebuild of an empty index would not run.
    const first = await save("https://durable.example.test/first", "Marmalade recipes", "Seville oranges and sugar.");
    await eventually(async () => (await found("marmalade")).includes(first), 20_000);

    // The index table refuses writes; nothing else does, so the writes themselves answer 200.
    await refuseWrites(trove.db, "items", ["search_docs"]);
    const second = await save("https://durable.example.test/second", "Quince paste", "Membrillo keeps for months.");
    const renamed = await trove.api(`/api/items/${first}`, { method: "POST", json: { title: "Bergamot marmalade" } });
    expect(renamed.status).toBe(200);

    await trove.restart();
    await acceptWrites(trove.db, "items");
    // On NATS, events the stopped process had pulled come back once the consumer's acknowledgement window (30 s) ends.
    await eventually(async () => (await found("membrillo")).includes(second), 60_000);
    await eventually(async () => (await found("bergamot")).includes(first), 60_000);
  }, 120_000);
});
