// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS); pages served by a local HTTP
// server on 127.0.0.1. Saves that answer before their capture ends: with a wait of 0 every save does, whatever the
// machine's speed, and the page the test holds decides when a capture ends. A capture is work on the items' queue:
// health shows it while it runs, and a fault of ours (the database refusing its writes) is tried again rather than
// shown as the page's error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { acceptWrites, eventually, heldTitle, refuseWrites, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";

let trove: TestTrove;
let pages: PageServer;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove({ TROVE_INGEST_WAIT_MS: "0" });
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

const ingest = async (body: Record<string, unknown>) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: body });
  expect(res.status).toBe(200);
  return res.json();
};
const item = async (id: string) => (await trove.api(`/api/items/${id}`)).json();
const captureQueue = async () => (await (await trove.api("/api/health", { key: null })).json()).services.items.queue;

test("a slow page finishes in the background and the item shows its content when done", async () => {
  const saved = await ingest({ url: `${pages.url}/held` });
  expect(saved).toMatchObject({ ok: true, extracted: false, background: true, sync: { added: 1 } });
  await pages.reached("/held");
  // Listed and readable at once, without content until the page answers; its capture is running work.
  expect(await item(saved.id)).toMatchObject({ id: saved.id, contentAvailable: false, contentExtractError: null });
  expect(await captureQueue()).toMatchObject({ running: 1, leaseExpired: 0 });
  pages.release();
  await eventually(async () => (await item(saved.id)).contentAvailable === true, 10_000);
  expect((await item(saved.id)).title).toBe(heldTitle);
  await eventually(async () => (await captureQueue()).running === 0);
});

test("a page sent as html answers before its extraction, and its content arrives after", async () => {
  const html = `<html><head><title>Sent Along</title></head><body><article><h1>Sent Along</h1><p>${"Words the browser sent. ".repeat(30)}</p></article></body></html>`;
  const saved = await ingest({ url: "https://sent-along.example.test/post", html });
  expect(saved).toMatchObject({ ok: true, extracted: false, background: true });
  await eventually(async () => (await item(saved.id)).contentAvailable === true, 30_000);
  const it = await item(saved.id);
  expect(it).toMatchObject({ title: "Sent Along", contentSource: "browser" });
  expect(it.contentMarkdown).toContain("Words the browser sent.");
});

test("a capture whose content the database refuses to store is tried again, and the item gets its content, not an error", async () => {
  // Storing a capture writes its images; the save itself writes none, so the save is answered.
  await refuseWrites(trove.db, "items", ["media"]);
  let id: string;
  try {
    const saved = await ingest({ url: `${pages.url}/article` });
    expect(saved).toMatchObject({ ok: true, background: true });
    id = saved.id;
    await pages.reached("/article");
    // The first try failed and waits for its next one (seconds later); nothing was recorded on the item.
    await eventually(() => trove.logs.some((l) => l.queue === "items.capture" && l.jobId !== undefined && l.msg === "job will run again"), 30_000);
    expect(await item(id)).toMatchObject({ contentAvailable: false, contentExtractError: null });
  } finally {
    await acceptWrites(trove.db, "items");
  }
  await eventually(async () => (await item(id)).contentAvailable === true, 30_000);
  expect(await item(id)).toMatchObject({ title: "Parsing Things Well", contentExtractError: null });
  expect(pages.hits.get("/article")).toBeGreaterThanOrEqual(2);
  expect(await captureQueue()).toMatchObject({ running: 0, failed: 0 });
});
