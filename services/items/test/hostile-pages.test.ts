// Hostile pages cannot stall Trove: extraction runs on worker threads with an element budget and a deadline.
// Real: every service in this process (PGlite + in-process bus, or PostgreSQL + NATS), real worker threads, a
// page server on 127.0.0.1. Nothing is timed: each test asserts the order in which things complete.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually, heldResponse, startTrove, type TestTrove } from "@trove/testing";

/** The page from the issue: 40,000 small `<div><a>` blocks, about 1 MB, 80,005 elements (over the budget). */
const hostile = `<html><head><title>Forty thousand links</title></head><body>${"<div><a href=#>ab</a></div>".repeat(40_000)}</body></html>`;

/** 20,005 elements: under the budget, but seconds of Readability. */
const heavy = `<html><head><title>Twenty thousand elements</title></head><body>${"<div><a href='/x'>link text</a></div>".repeat(10_000)}</body></html>`;

type Item = Record<string, any>;

async function ingest(t: TestTrove, body: Record<string, unknown>) {
  const res = await t.api("/api/ingest", { method: "POST", json: body });
  expect(res.status).toBe(200);
  return res.json();
}

async function item(t: TestTrove, id: string): Promise<Item> {
  const res = await t.api(`/api/items/${id}`);
  expect(res.status).toBe(200);
  return res.json();
}

async function health(t: TestTrove): Promise<void> {
  const res = await t.api("/api/health", { key: null });
  expect(res.status).toBe(200);
  expect((await res.json()).status).toBe("ok");
}

/** Whether the capture has landed on the item: content or an extraction error. */
const landed = (it: Item) => it.contentExtractedAt !== null || it.contentExtractError !== null;

/** A page server on 127.0.0.1 whose one page is held before its last bytes (heldResponse). */
function holdingPageServer(page: string) {
  const held = heldResponse(page, "text/html; charset=utf-8");
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: held.respond });
  return { url: `http://127.0.0.1:${server.port}/forty-thousand-links`, holding: held.holding, release: held.release, stop: () => server.stop(true) };
}

describe("while a hostile page is being extracted, other requests are answered", () => {
  // A save answers at once (background: true), so the extraction is still running when the test goes on.
  let t: TestTrove;
  beforeAll(async () => {
    t = await startTrove({ TROVE_INGEST_WAIT_MS: "0" });
  });
  afterAll(async () => {
    await t.stop();
  });

  test("sent as html: /api/health answers before the page's extraction lands", async () => {
    const saved = await ingest(t, { url: "https://hostile.example.test/links", html: hostile });
    expect(saved).toMatchObject({ ok: true, extracted: false, background: true });
    await health(t);
    // Health answered first: the extraction has not landed yet.
    expect(landed(await item(t, saved.id))).toBe(false);
    await eventually(async () => landed(await item(t, saved.id)), 30_000);
    expect((await item(t, saved.id)).contentExtractError).toMatch(/^page_too_complex: the page has 80005 elements/);
  });

  test("fetched from 127.0.0.1: /api/health answers before the page's extraction lands", async () => {
    const server = holdingPageServer(hostile);
    try {
      const saved = await ingest(t, { url: server.url });
      expect(saved).toMatchObject({ ok: true, extracted: false, background: true });
      await server.holding;
      await health(t);
      // The fetch completes now and extraction starts; health is asked at the same moment.
      server.release();
      await health(t);
      expect(landed(await item(t, saved.id))).toBe(false);
      await eventually(async () => landed(await item(t, saved.id)), 30_000);
      const it = await item(t, saved.id);
      expect(it.contentExtractError).toMatch(/^page_too_complex: /);
      expect(it.contentAvailable).toBe(false);
    } finally {
      server.stop();
    }
  });
});

/** Saves answer with their capture: its own deadlines end it well within the wait, whatever the machine's speed. */
const foreground = { TROVE_INGEST_WAIT_MS: "60000", TROVE_REQUEST_TIMEOUT_MS: "90000" };

describe("limits on one page", () => {
  let t: TestTrove;
  beforeAll(async () => {
    t = await startTrove(foreground);
  });
  afterAll(async () => {
    await t.stop();
  });

  test("a page over the element budget is saved with page_too_complex, answers extracted: false and is readable", async () => {
    const saved = await ingest(t, { url: "https://hostile.example.test/budget", html: hostile });
    expect(saved).toMatchObject({ ok: true, extracted: false, extractError: expect.stringMatching(/^page_too_complex: /) });
    expect(saved.background).toBeUndefined();
    expect(saved.sync).toMatchObject({ added: 1 });
    const it = await item(t, saved.id);
    expect(it).toMatchObject({ url: "https://hostile.example.test/budget", contentAvailable: false, contentExtractError: saved.extractError });
    const read = await t.api(`/api/items/${saved.id}/read`);
    expect(read.status).toBe(200);
    expect((await read.json()).item).toMatchObject({ id: saved.id, contentAvailable: false });
    const list = await (await t.api("/api/items?limit=100")).json();
    expect(list.items.map((i: Item) => i.id)).toContain(saved.id);
  });

  test("saving it again tries again and gives the same answer; an ordinary page still extracts", async () => {
    const first = await ingest(t, { url: "https://hostile.example.test/again", html: hostile });
    const again = await ingest(t, { url: "https://hostile.example.test/again", html: hostile });
    expect(again).toMatchObject({ id: first.id, extracted: false, extractError: first.extractError });
    const fine = await ingest(t, {
      url: "https://hostile.example.test/fine",
      html: `<html><head><title>Fine</title></head><body><article><p>${"An ordinary paragraph of text. ".repeat(30)}</p></article></body></html>`,
    });
    expect(fine).toMatchObject({ extracted: true });
    expect((await item(t, fine.id)).contentMarkdown).toContain("An ordinary paragraph of text.");
  });
});

describe("the extraction deadline", () => {
  let t: TestTrove;
  beforeAll(async () => {
    // One millisecond: a page of 20,000 elements takes seconds.
    t = await startTrove({ ...foreground, TROVE_EXTRACT_TIMEOUT_MS: "1" });
  });
  afterAll(async () => {
    await t.stop();
  });

  test("a page still extracting at the deadline is saved with extract_timeout, and the item is readable", async () => {
    const saved = await ingest(t, { url: "https://hostile.example.test/slow", html: heavy });
    expect(saved).toMatchObject({ ok: true, extracted: false, extractError: "extract_timeout: the page took longer than 1 ms to extract" });
    const it = await item(t, saved.id);
    expect(it).toMatchObject({ contentAvailable: false, contentExtractError: saved.extractError });
    expect((await t.api(`/api/items/${saved.id}/read`)).status).toBe(200);
    // The stopped worker was replaced: the next page gets a worker too (and is held to the same deadline).
    const next = await ingest(t, { url: "https://hostile.example.test/slow-2", html: heavy });
    expect(next).toMatchObject({ extracted: false, extractError: saved.extractError });
    await health(t);
  });
});
