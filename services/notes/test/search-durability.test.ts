// Real: every service in-process, restarted on the same data (PGlite in the data directory, or a scratch
// PostgreSQL database with NATS JetStream), driven over HTTP. A note write the search index could not take in (its
// table refusing writes) is indexed once the index takes writes again, even across a restart in between: the
// index follows the notes' events from a durable position, and nothing of them is kept only in memory.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptWrites, eventually, refuseWrites, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" }, { persistent: true });
});
afterAll(() => trove.stop());

async function ok(path: string, method: string, json?: unknown) {
  const res = await trove.api(path, { method, json });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const searchIds = async (q: string): Promise<string[]> =>
  ((await ok(`/api/notes/search?q=${encodeURIComponent(q)}`, "GET")).results as { id: string }[]).map((r) => r.id);

test("writes made while the search index refused them are found after a restart, once it takes writes again", async () => {
  // An index that is not empty: a start then has no reason to rebuild it from scratch.
  const indexed = (await ok("/api/notes", "POST", { title: "Lighthouse keeping", bodyMarkdown: "Lamps and lenses." })).note.id;
  await eventually(async () => (await searchIds("lighthouse")).includes(indexed));

  await refuseWrites(trove.db, "notes", ["search_docs"]);
  const retitled = (await ok("/api/notes", "POST", { title: "Draft", bodyMarkdown: "Kept for later." })).note.id;
  await ok(`/api/notes/${retitled}`, "PATCH", { expectedRevision: 1, title: "Quarantine protocols" });
  const created = (await ok("/api/notes", "POST", { title: "Saltmarsh birds", bodyMarkdown: "Avocets and redshanks." })).note.id;

  await trove.restart();
  await acceptWrites(trove.db, "notes");

  // The consumer retries with growing waits (seconds apart): the wait is generous, the outcome certain.
  await eventually(async () => (await searchIds("quarantine")).includes(retitled), 60_000);
  await eventually(async () => (await searchIds("saltmarsh")).includes(created), 60_000);
  expect(await searchIds("draft")).not.toContain(retitled);
  expect(await searchIds("lighthouse")).toContain(indexed);
}, 180_000);
