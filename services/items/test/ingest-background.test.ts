// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS); pages served by a local HTTP
// server on 127.0.0.1. Saves that answer before their capture ends: with a wait of 0 every save does, whatever the
// machine's speed, and the page the test holds decides when a capture ends.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually, heldTitle, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";

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

test("a slow page finishes in the background and the item shows its content when done", async () => {
  const saved = await ingest({ url: `${pages.url}/held` });
  expect(saved).toMatchObject({ ok: true, extracted: false, background: true, sync: { added: 1 } });
  await pages.reached("/held");
  // Listed and readable at once, without content until the page answers.
  expect(await item(saved.id)).toMatchObject({ id: saved.id, contentAvailable: false, contentExtractError: null });
  pages.release();
  await eventually(async () => (await item(saved.id)).contentAvailable === true, 10_000);
  expect((await item(saved.id)).title).toBe(heldTitle);
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
