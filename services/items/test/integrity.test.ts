// Data that must not be lost or miscounted, under truly parallel requests. Real: every service in this process on
// the test stack (PGlite + in-process bus, or PostgreSQL + NATS), pages from a local server on 127.0.0.1 whose
// answers the test releases, so every race here is decided by the test and never by a sleep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { addClientKey, aliceKey, articleHtml, bobKey, eventually, seedAccounts, startTrove, type TestTrove } from "@trove/testing";

const carolKey = "test-key-carol-0123456789";
const daveKey = "test-key-dave-01234567890";
const accounts = JSON.stringify([
  ...JSON.parse(seedAccounts),
  { email: "carol@example.test", apiKey: carolKey, plan: "free", linkLimit: 3, limitScope: "lifetime" },
  { email: "dave@example.test", apiKey: daveKey, plan: "free", linkLimit: 3, limitScope: "billing_cycle" },
]);

/** Pages held until the test releases them; `arrived` resolves when the server has the request. */
function gatedPages() {
  const gates = new Map<string, { arrived: Promise<void>; arrive: () => void; opened: Promise<void>; open: () => void }>();
  const gate = (path: string) => {
    let g = gates.get(path);
    if (!g) {
      const arrival = Promise.withResolvers<void>();
      const opening = Promise.withResolvers<void>();
      g = { arrived: arrival.promise, arrive: arrival.resolve, opened: opening.promise, open: opening.resolve };
      gates.set(path, g);
    }
    return g;
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const g = gate(url.pathname);
      g.arrive();
      await g.opened;
      if (url.pathname.startsWith("/to-metadata")) return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
      const name = url.searchParams.get("name") ?? "fetched";
      const html = `<html><head><title>${name}</title></head><body><article><h1>${name}</h1><p>${`Words of the ${name} version. `.repeat(20)}</p>
        <img src="/img/${name}-1.png" alt="one"><img src="/img/${name}-2.png" alt="two"><img src="/img/${name}-3.png" alt="three"></article></body></html>`;
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, gate, stop: () => server.stop(true) };
}

/**
 * `trove` answers every save with its capture, whatever the machine's speed: a capture is bounded by its own
 * deadlines (the fetch 20 s in all, extraction 30 s), well within the 60 s wait. `background` (a wait of 0) answers
 * every save before its capture ends, for the tests that hold a page.
 */
let trove: TestTrove;
let background: TestTrove;
let pages: ReturnType<typeof gatedPages>;
beforeAll(async () => {
  pages = gatedPages();
  trove = await startTrove({ TROVE_SEED_ACCOUNTS: accounts, TROVE_INGEST_WAIT_MS: "60000", TROVE_EXTRACT_TIMEOUT_MS: "30000", TROVE_REQUEST_TIMEOUT_MS: "90000" });
  background = await startTrove({ TROVE_INGEST_WAIT_MS: "0" });
});
afterAll(async () => {
  await trove.stop();
  await background.stop();
  pages.stop();
});

type Init = Parameters<TestTrove["api"]>[1];
const call = async (path: string, init?: Init, t = trove) => {
  const res = await t.api(path, init);
  return { status: res.status, body: await res.json() };
};
const ingest = (json: Record<string, unknown>, key = aliceKey, t = trove) => call("/api/ingest", { method: "POST", json, key }, t);
const me = async (key: string, t = trove) => (await call("/api/me", { key }, t)).body;
const page = (n: number, words = "A page about parallel saves.") => `<html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1><p>${words.repeat(10)}</p></article></body></html>`;
const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082", "hex");
const upload = (id: string, key = aliceKey) =>
  call(`/api/items/${id}/media`, { method: "POST", json: { contentType: "image/png", dataBase64: png.toString("base64") }, key });

describe("the plan limit is one atomic step with the insert", () => {
  for (const [who, key] of [["lifetime", carolKey], ["billing cycle", daveKey]] as const) {
    test(`8 parallel saves of different URLs with a limit of 3 (${who}): 3 saved, 5 refused, the count is 3`, async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => ingest({ url: `https://quota-${who.replace(" ", "-")}.test/${i}`, html: page(i) }, key)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
      for (const r of results.filter((r) => r.status === 429)) expect(r.body).toMatchObject({ error: "quota_reached", linkLimit: 3, linkCount: 3 });
      expect(await me(key)).toMatchObject({ linkCount: 3, linkCountLifetime: 3, linkCountMonth: 3 });
      const list = (await call("/api/items", { key })).body;
      expect(list.count).toBe(3);
      expect(list.items.map((i: any) => i.id).sort()).toEqual(results.filter((r) => r.status === 200).map((r) => r.body.id).sort());
    });
  }

  test("parallel saves of one new URL make one item, counted once, with every save counted in timesAdded", async () => {
    const before = await me(aliceKey);
    const url = "https://same-url.test/parallel";
    const results = await Promise.all(Array.from({ length: 8 }, () => ingest({ url, html: page(1) })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.body.sync.added === 1).length).toBe(1);
    const item = (await call(`/api/items/${[...ids][0]}`)).body;
    expect(item.timesAdded).toBe(8);
    expect((await me(aliceKey)).linkCountLifetime).toBe(before.linkCountLifetime + 1);
  });
});

describe("a save is all or nothing", () => {
  test("a save whose content cannot be stored leaves no item and no count", async () => {
    // Fault injection in the real database: storing content that carries this marker fails.
    await sql`create or replace function items.fail_store() returns trigger language plpgsql as $$
      begin if new.content_markdown like '%FAIL-THE-STORE%' then raise exception 'store failed on purpose'; end if; return new; end $$`.execute(trove.db);
    await sql`create trigger fail_store before update on items.items for each row execute function items.fail_store()`.execute(trove.db);
    const eventCount = async () => (await sql<{ n: number }>`select count(*)::int as n from eventlog.events`.execute(trove.db)).rows[0]!.n;
    try {
      const before = await me(aliceKey);
      const events = await eventCount();
      const res = await ingest({ url: "https://fails-to-store.test/a", html: page(1, "FAIL-THE-STORE and more words here. ") });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "internal_error", message: "internal error" });
      expect((await me(aliceKey)).linkCountLifetime).toBe(before.linkCountLifetime);
      expect((await call("/api/items?source=fails-to-store.test")).body.count).toBe(0);
      expect(await eventCount()).toBe(events);
    } finally {
      await sql`drop trigger fail_store on items.items`.execute(trove.db);
    }
  });
});

describe("deleting with a scoped key", () => {
  test("only the deleted items lose their uploaded images; an out-of-scope item keeps its row and its image", async () => {
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["delete-scope"] } });
    const inside = (await ingest({ url: "https://scoped-delete.test/in", html: articleHtml })).body.id;
    const outside = (await ingest({ url: "https://scoped-delete.test/out", html: articleHtml })).body.id;
    await call(`/api/items/${inside}`, { method: "POST", json: { tags: ["delete-scope"] } });
    const inImage = (await upload(inside)).body.media;
    const outImage = (await upload(outside)).body.media;
    const res = await call("/api/items/delete", { method: "POST", json: { ids: [inside, outside] }, key: scoped });
    expect(res.body).toEqual({ requested: 2, deleted: 1 });
    expect((await call(`/api/items/${inside}`)).status).toBe(404);
    const served = await trove.api(outImage.url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    const keys = await trove.blobs.list();
    expect(keys).toContain(`media-${outImage.id}`);
    expect(keys).not.toContain(`media-${inImage.id}`);
  });
});

describe("overlapping captures of one item", () => {
  test("a slow background fetch that finishes after a later browser save does not overwrite it; images stay one set", async () => {
    const gate = pages.gate("/overlap");
    const url = `${pages.url}/overlap?name=fetched`;
    const first = await ingest({ url }, aliceKey, background);
    expect(first.body).toMatchObject({ background: true, extracted: false });
    await gate.arrived;
    const browserHtml = `<html><head><title>Browser</title></head><body><article><h1>Browser</h1><p>${"Words the browser saw. ".repeat(20)}</p><img src="https://cdn.test/browser.png" alt="b"></article></body></html>`;
    const second = await ingest({ url, html: browserHtml }, aliceKey, background);
    expect(second.body).toMatchObject({ id: first.body.id, background: true });
    const current = async () => (await call(`/api/items/${first.body.id}`, undefined, background)).body;
    // The browser's content is stored; only then does the slow fetch finish.
    await eventually(async () => (await current()).contentSource === "browser", 30_000);
    gate.open();
    const finished = () => background.logs.filter((l) => l.msg === "background capture finished" && l.itemId === first.body.id);
    await eventually(() => finished().length === 2);
    // The browser's capture is the newer one: the superseded capture is the fetch.
    expect(finished().map((l) => l.outcome).sort()).toEqual(["stored", "superseded"]);
    const item = await current();
    expect(item.contentSource).toBe("browser");
    expect(item.contentMarkdown).toContain("Words the browser saw.");
    expect(item.contentMarkdown).not.toContain("fetched version");
    const media = (await call(`/api/items/${first.body.id}/media?limit=100`, undefined, background)).body.media;
    expect(media.map((m: any) => m.url)).toEqual(["https://cdn.test/browser.png"]);
  });

  test("ten parallel browser captures of one URL: the content and the images are those of exactly one capture", async () => {
    const url = "https://parallel-captures.test/page";
    const html = (n: number) =>
      `<html><head><title>Capture ${n}</title></head><body><article><h1>Capture ${n}</h1><p>${`Version ${n} of the text. `.repeat(20)}</p>${[1, 2, 3]
        .map((k) => `<img src="https://cdn.test/c${n}-${k}.png" alt="${k}">`)
        .join("")}</article></body></html>`;
    const results = await Promise.all(Array.from({ length: 10 }, (_, n) => ingest({ url, html: html(n) })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const id = results[0]!.body.id;
    const item = (await call(`/api/items/${id}`)).body;
    const n = Number(/Version (\d+) of the text/.exec(item.contentMarkdown)?.[1]);
    expect(item.contentMarkdown).not.toMatch(new RegExp(`Version (?!${n} )\\d+ of the text`));
    const media = (await call(`/api/items/${id}/media?limit=100`)).body;
    expect(media.count).toBe(3);
    expect(media.media.map((m: any) => m.url)).toEqual([1, 2, 3].map((k) => `https://cdn.test/c${n}-${k}.png`));
  });
});

describe("writes racing a delete", () => {
  test("uploads and highlights racing deletes answer 200 or 404, never 5xx, and leave no orphan blob", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await ingest({ url: `https://race-delete.test/${i}`, html: articleHtml })).body.id);
    const outcomes = await Promise.all(
      ids.flatMap((id) => [
        upload(id).then((r) => r.status),
        call(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers turn text into structure" } }).then((r) => r.status),
        call("/api/items/delete", { method: "POST", json: { ids: [id] } }).then((r) => (r.body.deleted === 1 ? 200 : r.status)),
      ]),
    );
    expect(outcomes.every((s) => s === 200 || s === 404)).toBe(true);
    for (const id of ids) expect((await call(`/api/items/${id}`)).status).toBe(404);
    const referenced = new Set(
      (await trove.db.withSchema("items").selectFrom("media").select("blob_key").where("blob_key", "is not", null).execute()).map((r) => r.blob_key),
    );
    const orphans = (await trove.blobs.list()).filter((k) => !referenced.has(k));
    expect(orphans).toEqual([]);
  });
});

describe("refusals, whatever the timing", () => {
  test("a refused first hop answers 400 even when every save goes to the background, and nothing is saved", async () => {
    const guarded = await startTrove({ TROVE_ALLOW_PRIVATE_NETWORK: "0", TROVE_INGEST_WAIT_MS: "0" });
    try {
      const port = new URL(pages.url).port;
      for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
        const res = await guarded.api("/api/ingest", { method: "POST", json: { url: `http://${host}:${port}/never` } });
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.error).toBe("url_not_allowed");
        if (host === "localhost") {
          // The answer does not say what the name resolved to.
          expect(body.message).toBe("localhost resolves to an address Trove may not fetch");
        }
      }
      expect((await (await guarded.api("/api/items")).json()).count).toBe(0);
      expect((await (await guarded.api("/api/me")).json()).linkCountLifetime).toBe(0);
    } finally {
      await guarded.stop();
    }
  });

  test("a redirect to a metadata address found after the answer takes the save back, count included", async () => {
    const gate = pages.gate("/to-metadata");
    const before = await me(bobKey, background);
    const saved = await ingest({ url: `${pages.url}/to-metadata` }, bobKey, background);
    expect(saved.body).toMatchObject({ ok: true, background: true });
    await gate.arrived;
    gate.open();
    await eventually(async () => (await call(`/api/items/${saved.body.id}`, { key: bobKey }, background)).status === 404);
    expect(await me(bobKey, background)).toMatchObject({ linkCountLifetime: before.linkCountLifetime, linkCountMonth: before.linkCountMonth });
    const types = (await background.db.selectFrom("eventlog.events").select("subject").where("key", "=", saved.body.id).orderBy("seq").execute()).map((e) => e.subject);
    expect(types).toEqual(["items.event.item.created", "items.event.item.deleted"]);
  });
});

describe("privacy", () => {
  test("credentials in a saved URL are never stored, listed or sent in events", async () => {
    const saved = await ingest({ url: "http://user:s3cret@creds.test/private?x=1", html: page(1) });
    expect(saved.body.url).toBe("http://creds.test/private?x=1");
    const list = await trove.api("/api/items?source=creds.test&include=content");
    expect(await list.text()).not.toContain("s3cret");
    const events = await trove.db.selectFrom("eventlog.events").selectAll().where("key", "=", saved.body.id).execute();
    expect(JSON.stringify(events)).not.toContain("s3cret");
  });

  test("the feed holds only items that have content", async () => {
    const withContent = (await ingest({ url: "https://feed-content.test/yes", html: page(1) })).body.id;
    const without = (await ingest({ url: "https://feed-content.invalid/no" })).body;
    expect(without.extracted).toBe(false);
    const feed = (await call("/api/feed?limit=1000")).body;
    const ids = feed.items.map((i: any) => i.id);
    expect(ids).toContain(withContent);
    expect(ids).not.toContain(without.id);
    expect(feed.items.every((i: any) => typeof i.contentMarkdown === "string" && i.content.schemaVersion === 2)).toBe(true);
  });

  test("an uploaded SVG is served as an attachment in a sandbox", async () => {
    const id = (await ingest({ url: "https://svg.test/a", html: articleHtml })).body.id;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
    const up = await call(`/api/items/${id}/media`, { method: "POST", json: { contentType: "image/svg+xml", dataBase64: svg.toString("base64") } });
    expect(up.status).toBe(200);
    const res = await trove.api(up.body.media.url);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("content-disposition")).toBe("attachment");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const pngUp = (await upload(id)).body.media;
    expect((await trove.api(pngUp.url)).headers.get("content-disposition")).toBeNull();
  });
});

describe("highlights on hostile content", () => {
  test("a one-character highlight with 2,000-character anchors in 512 KB of that character lands where both anchors match", async () => {
    const body = "a".repeat(512 * 1024 - 64);
    const id = (await ingest({ url: "https://hostile-anchor.test/a", html: `<html><body><article><p>${body}</p></article></body></html>` })).body.id;
    const md: string = (await call(`/api/items/${id}`)).body.contentMarkdown;
    expect(md).toBe(body);
    const anchors = "a".repeat(2_000);
    const [created, health] = await Promise.all([
      call(`/api/items/${id}/highlights`, { method: "POST", json: { text: "a", prefix: anchors, suffix: anchors } }),
      trove.api("/api/health", { key: null }),
    ]);
    expect(health.status).toBe(200);
    expect(created.status).toBe(200);
    expect(created.body.highlight).toMatchObject({ startOffset: 2_000, endOffset: 2_001 });
    // Extracted again, it is found again the same way.
    await ingest({ url: "https://hostile-anchor.test/a", html: `<html><body><article><p>b${body}</p></article></body></html>` });
    expect((await call(`/api/highlights/${created.body.highlight.id}`)).body.highlight).toMatchObject({ startOffset: 2_001, endOffset: 2_002 });
  });
});
