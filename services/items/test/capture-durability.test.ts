// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS) restarted on its data; the
// embedded deployment as its own process, or on PostgreSQL + NATS the items service as its own process beside the
// others, killed with SIGKILL; pages served on 127.0.0.1 and held until the test releases them. A save that
// answered before its capture ended is durable work: a stop or a crash hands the capture to the next start, and a
// capture that can never finish ends with an error its owner reads. A graceful stop in the middle of captures and
// deliveries (intake first, then jobs, then consumers) loses none of them, nor any event, seen by a webhook receiver.
import { afterEach, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import {
  articleHtml,
  eventually,
  heldTitle,
  spawnBun,
  spawnEmbedded,
  startPageServer,
  startTrove,
  startWebhookReceiver,
  testStack,
  testStackDefaults,
  waitForHealth,
  type Api,
  type PageServer,
} from "@trove/testing";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function pageServer(): PageServer {
  const pages = startPageServer();
  cleanups.push(() => pages.stop());
  return pages;
}

// The held page cannot answer before the test releases it, so a save of it answers `background: true` whatever the
// machine's speed; the short wait makes that answer come soon.
const slowSave = { TROVE_INGEST_WAIT_MS: "100" };
/** Health is asked every 100 ms while a process starts: far more than the default rate limit allows in a minute. */
const unlimited = { TROVE_RATE_LIMIT: "1000000" };

async function saveHeld(api: Api, pages: PageServer): Promise<string> {
  const res = await api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held` } });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ ok: true, extracted: false, background: true });
  return body.id;
}

const item = async (api: Api, id: string) => {
  const res = await api(`/api/items/${id}`);
  expect(res.status).toBe(200);
  return res.json();
};

const heldHits = (pages: PageServer) => pages.hits.get("/held") ?? 0;

/** The page's capture begins again: the held page is asked for an `n`th time. */
const askedAgain = (pages: PageServer, n: number) => eventually(() => heldHits(pages) >= n, 30_000);

/** What health shows of the items' work queue. */
const captureQueue = async (api: Api) => (await (await api("/api/health", { key: null })).json()).services.items.queue;

/**
 * A Trove whose items service a test kills with SIGKILL and starts again on the same data: the embedded deployment
 * (one process, PGlite in its data directory), or on PostgreSQL + NATS the items service as its own process (as
 * the distributed deployment runs it) beside the other services in this process. A dead items process's claims are
 * taken over once their lease (one second here) has run out.
 */
async function crashable(env: Record<string, string>): Promise<{ api: Api; crash(): Promise<void>; restart(): Promise<void> }> {
  if (testStack() === "embedded") {
    const trove = await spawnEmbedded({ ...unlimited, ...env });
    cleanups.push(() => trove.stop());
    return { api: trove.api, crash: async () => void (await trove.kill("SIGKILL")), restart: () => trove.restart() };
  }
  const trove = await startTrove({ ...unlimited, ...env }, { without: ["items"] });
  cleanups.push(() => trove.stop());
  const { busPrefix, natsUrl } = trove.runtime.config;
  const itemsEnv = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: trove.databaseUrl!,
    NATS_URL: natsUrl!,
    TROVE_BUS_PREFIX: busPrefix,
    TROVE_ALLOW_PRIVATE_NETWORK: "1",
    LOG_LEVEL: "warn",
    TROVE_JOB_LEASE_MS: "1000",
    ...testStackDefaults,
    ...env,
  };
  let proc: Subprocess | undefined;
  const start = async () => {
    proc = spawnBun("services/items/main.ts", itemsEnv);
    await waitForHealth(trove.url);
  };
  const crash = async () => {
    proc?.kill("SIGKILL");
    await proc?.exited;
    proc = undefined;
  };
  cleanups.push(async () => {
    proc?.kill("SIGTERM");
    await proc?.exited;
  });
  await start();
  return { api: trove.api, crash, restart: start };
}

describe("a background capture outlives its process", () => {
  test("stopped during the capture: the capture is given back, and after the restart the item gets its content", async () => {
    const pages = pageServer();
    // No grace: the stop gives the capture back at once (the held page could not answer within one anyway).
    const trove = await startTrove({ ...slowSave, TROVE_STOP_GRACE_MS: "0" }, { persistent: true });
    cleanups.push(() => trove.stop());
    const id = await saveHeld(trove.api, pages);
    await pages.reached("/held");

    await trove.restart();
    await askedAgain(pages, 2);
    // The stop recorded nothing on the item: its capture is running again, not failed.
    expect(await item(trove.api, id)).toMatchObject({ contentAvailable: false, contentExtractError: null });
    pages.release();
    await eventually(async () => (await item(trove.api, id)).contentAvailable === true, 30_000);
    expect(await item(trove.api, id)).toMatchObject({ title: heldTitle, contentSource: "fetch", contentExtractError: null });
    await eventually(async () => (await captureQueue(trove.api)).running === 0);
  }, 120_000);

  test("killed during the capture (SIGKILL): after the restart the page is captured again and the item gets its content", async () => {
    const pages = pageServer();
    const trove = await crashable(slowSave);
    const id = await saveHeld(trove.api, pages);
    await pages.reached("/held");

    await trove.crash();
    await trove.restart();
    await askedAgain(pages, 2);
    expect(await item(trove.api, id)).toMatchObject({ contentAvailable: false, contentExtractError: null });
    pages.release();
    await eventually(async () => (await item(trove.api, id)).contentAvailable === true, 30_000);
    expect(await item(trove.api, id)).toMatchObject({ title: heldTitle, contentExtractError: null });
    expect(heldHits(pages)).toBe(2);
  }, 180_000);

  test("a capture cut short by a crash at every try ends with an error the owner reads, and is not tried again", async () => {
    const pages = pageServer();
    const trove = await crashable(slowSave);
    const id = await saveHeld(trove.api, pages);
    // Three tries, each killed while it waits for the page.
    for (let n = 1; n <= 3; n++) {
      await askedAgain(pages, n);
      await trove.crash();
      await trove.restart();
    }
    await eventually(async () => (await item(trove.api, id)).contentExtractError !== null, 30_000);
    const it = await item(trove.api, id);
    expect(it.contentAvailable).toBe(false);
    expect(it.contentExtractError).toMatch(/^capture_interrupted: the page could not be captured after 3 tries/);
    expect(heldHits(pages)).toBe(3);
    expect(await captureQueue(trove.api)).toMatchObject({ running: 0, leaseExpired: 0, failed: 1 });
    // The item's change is announced like any capture's end.
    const { events } = await (await trove.api("/api/items/changes?limit=100")).json();
    expect((events as any[]).filter((e) => e.itemId === id).map((e) => [e.type, e.payload.changedFields])).toEqual([
      ["item.created", []],
      ["item.updated", ["contentExtractError"]],
    ]);
  }, 240_000);
});

describe("a graceful stop in the middle of background work", () => {
  test("a save in flight when the stop begins is answered, content and all; the gateway takes no new request meanwhile", async () => {
    const pages = pageServer();
    // The save waits for its capture (a minute at most), so it is in flight until the test releases the page.
    const trove = await startTrove({ ...unlimited, TROVE_INGEST_WAIT_MS: "60000" });
    let stopped = false;
    cleanups.push(async () => void (stopped || (await trove.stop())));
    const url = trove.url;
    const pending = trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held` } });
    await pages.reached("/held");

    const stopping = trove.stop().then(() => (stopped = true));
    await eventually(() => fetch(`${url}/api/health`).then(() => false, () => true), 30_000);
    expect(stopped).toBe(false);
    pages.release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, extracted: true });
    await stopping;
  }, 120_000);

  test("loses nothing: every capture ends with content, every event is in the change stream and reaches the webhook endpoint", async () => {
    const pages = pageServer();
    const receiver = startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    // A short grace: whether a capture finishes within it or is given back, nothing may be lost either way. No wait
    // at all: every save, the pages sent along included, is captured in the background (a warm worker can extract a
    // sent page within any short wait, and the save would then carry its content in its one event).
    const trove = await startTrove({ TROVE_INGEST_WAIT_MS: "0", ...unlimited, TROVE_STOP_GRACE_MS: "200" }, { persistent: true });
    cleanups.push(() => trove.stop());
    expect((await trove.api("/api/webhooks", { method: "POST", json: { url: receiver.url } })).status).toBe(200);
    const start = (await (await trove.api("/api/items/changes?limit=1000")).json()).nextCursor as string;

    // Captures that cannot end before the stop (held pages), and extractions of pages sent along, under way.
    const held: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held?copy=${i}` } });
      expect(res.status).toBe(200);
      held.push((await res.json()).id);
    }
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await trove.api("/api/ingest", { method: "POST", json: { url: `https://graceful-${i}.example.test/post`, html: articleHtml } });
      expect(res.status).toBe(200);
      sent.push((await res.json()).id);
    }
    await pages.reached("/held", 3);

    await trove.restart();
    pages.release();
    const ids = [...held, ...sent];
    for (const id of ids) {
      await eventually(async () => {
        const it = await item(trove.api, id);
        return it.contentAvailable === true || it.contentExtractError !== null;
      }, 60_000);
      expect(await item(trove.api, id)).toMatchObject({ contentAvailable: true, contentExtractError: null });
    }

    // Each item's change is in the stream once; and each reached the endpoint (at least once).
    const events: any[] = [];
    for (let cursor = start; ; ) {
      const { events: page, nextCursor, hasMore } = await (await trove.api(`/api/items/changes?cursor=${cursor}&limit=1000`)).json();
      events.push(...page);
      cursor = nextCursor;
      if (!hasMore) break;
    }
    for (const id of ids) {
      const mine = events.filter((e) => e.itemId === id);
      expect(mine.map((e) => e.type)).toEqual(["item.created", "item.updated"]);
    }
    const eventIds = events.map((e) => e.id as string);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    await eventually(() => eventIds.every((e) => receiver.bodies().some((b) => b.data?.eventId === e)), 60_000);
    await eventually(async () => (await captureQueue(trove.api)).running === 0);
    expect(await captureQueue(trove.api)).toMatchObject({ failed: 0 });
  }, 180_000);
});
