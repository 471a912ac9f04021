// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), two sources replicas whose
// poll queues the tests drive with a clock (runDue), and local feeds on 127.0.0.1. What a user sees: the create's
// initialRun, the source's status fields and events, and the items the sources added (GET /api/items).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nowSeconds } from "@trove/db";
import { migrateModules } from "@trove/host";
import { bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";
import { sourcesService, startSources } from "../index.ts";
import { atom, feedServer, rdf, rss2, youtube, type FixtureEntry } from "./feeds.ts";

let trove: TestTrove;
let feeds: ReturnType<typeof feedServer>;
let a: Awaited<ReturnType<typeof startSources>>;
let b: Awaited<ReturnType<typeof startSources>>;

beforeAll(async () => {
  feeds = feedServer();
  trove = await startTrove(
    {
      TROVE_RATE_LIMIT: "100000",
      TROVE_YOUTUBE_FEED_URL: `${feeds.base}/yt/videos.xml`,
      TROVE_X_RSS_URL_TEMPLATE: `${feeds.base}/x/{username}.rss`,
    },
    { without: ["sources"] },
  );
  await migrateModules([sourcesService], trove.runtime.database);
  // Two replicas of the sources service on one database and bus, each with its poll worker of its own; their timers
  // off, the tests run them.
  a = await startSources(trove.runtime, { timer: false });
  b = await startSources(trove.runtime, { timer: false });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await trove?.stop();
  feeds?.stop();
});

/** A clock that only moves forward, two days a step: every syncing source is due at each step (backoff caps at a day). */
let clock = nowSeconds();
const later = () => (clock += 2 * 86_400);

/** One scheduling round at a later time, both replicas at once. */
async function round(): Promise<void> {
  const now = later();
  await Promise.all([a.polls.runDue(now), b.polls.runDue(now)]);
}

async function call(path: string, init: { json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, { method: init.json === undefined ? "GET" : "POST", json: init.json, key: init.key });
  return { status: res.status, body: await res.json() };
}
async function create(json: Record<string, unknown>, key?: string) {
  const r = await call("/api/sources", { json, key });
  expect({ status: r.status, error: r.status === 200 ? null : r.body }).toEqual({ status: 200, error: null });
  return r.body as { source: any; initialRun: { status: string; itemsAdded: number; entriesSeen: number; error?: string } };
}
const source = async (id: string) => (await call(`/api/sources/${id}`)).body.source;
const events = async (id: string) => (await call(`/api/sources/${id}/events?limit=200`)).body.events as { type: string; itemsAdded: number; message: string | null; detail: any }[];
async function itemsOf(name: string, key?: string) {
  const body = (await call(`/api/items?source=${encodeURIComponent(name)}&limit=1000`, { key })).body;
  return body.items as { id: string; title: string; url: string; tags: string[] }[];
}

const day = 86_400;
const t0 = nowSeconds();
const entries = (prefix: string, n: number, from = 0): FixtureEntry[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${from + i}`, title: `${prefix} entry ${from + i}`, link: `http://site.test/${prefix}/${from + i}`, at: t0 - (from + i) * 3600 }));

describe("feed formats", () => {
  test("RSS 2.0: the newest backfillItems become items with title, default and smart tags; the feed names the source", async () => {
    const list = entries("rss2", 3);
    list[0]!.title = "Crème brûlée at home";
    const url = feeds.feed("/rss2.xml", rss2("Cooking Weekly", list));
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 2, defaultTags: ["food"], smartTagRules: [{ field: "title", contains: "CREME", tags: ["dessert"] }] });
    expect(r.initialRun).toEqual({ status: "ok", itemsAdded: 2, entriesSeen: 3 });
    expect(r.source).toMatchObject({ name: "Cooking Weekly", itemCount: 2, lastError: null, consecutiveFailures: 0 });
    expect(r.source.lastSuccessAt).toBeGreaterThanOrEqual(t0);
    const items = await itemsOf("Cooking Weekly");
    // Newest listed first: added last.
    expect(items.map((i) => [i.title, i.url, [...i.tags].sort()])).toEqual([
      ["Crème brûlée at home", "http://site.test/rss2/0", ["dessert", "food"]],
      ["rss2 entry 1", "http://site.test/rss2/1", ["food"]],
    ]);
    expect((await events(r.source.id))[0]).toMatchObject({ type: "run", itemsAdded: 2, detail: { entriesSeen: 3 } });
  });

  test("RSS 1.0 (RDF) and Atom: backfillDays takes what was published within the days; a given name is kept", async () => {
    const old = { id: "old", title: "Old news", link: "http://site.test/old", at: t0 - 30 * day };
    const rdfUrl = feeds.feed("/rdf.xml", rdf("RDF Times", [...entries("rdf", 2), old]), "application/rdf+xml");
    const r1 = await create({ type: "rss", feedUrl: rdfUrl, backfillDays: 7, name: "My RDF" });
    expect(r1.initialRun).toEqual({ status: "ok", itemsAdded: 2, entriesSeen: 3 });
    expect(r1.source.name).toBe("My RDF");
    expect((await itemsOf("My RDF")).map((i) => i.title)).toEqual(["rdf entry 0", "rdf entry 1"]);

    const atomUrl = feeds.feed("/atom.xml", atom("Atom Journal", [...entries("atom", 2), old]), "application/atom+xml");
    const r2 = await create({ type: "rss", feedUrl: atomUrl, backfillDays: 7, smartTagRules: [{ field: "any", contains: "atom entry 1", tags: ["one"] }] });
    expect(r2.initialRun).toEqual({ status: "ok", itemsAdded: 2, entriesSeen: 3 });
    const items = await itemsOf("Atom Journal");
    expect(items.map((i) => [i.title, i.tags])).toEqual([
      ["atom entry 0", []],
      ["atom entry 1", ["one"]],
    ]);
    const full = (await call(`/api/items/${items[0]!.id}`)).body;
    expect(full.contentMarkdown).toContain("atom entry 0 body");
  });

  test("a YouTube channel: each video an item with its title, description as content and thumbnail as an image", async () => {
    const channelId = "UCabcdefghijklmnopqrstuv";
    feeds.feed("/yt/videos.xml", youtube(channelId, "Woodworking Channel", [
      { id: "vid1", title: "Building a table", at: t0 - 3600, description: "Part one of the table.\nWe cut the legs." },
      { id: "vid2", title: "Sharpening chisels", at: t0 - 7200, description: "Keep them sharp." },
    ]), "application/atom+xml");
    const r = await create({ type: "youtube_channel", channelId, backfillItems: 5 });
    expect(r.initialRun).toEqual({ status: "ok", itemsAdded: 2, entriesSeen: 2 });
    expect(r.source.name).toBe("Woodworking Channel");
    expect(feeds.requests.find((q) => q.path === "/yt/videos.xml")?.search).toBe(`?channel_id=${channelId}`);
    const items = await itemsOf("Woodworking Channel");
    expect(items.map((i) => [i.title, i.url])).toEqual([
      ["Building a table", "https://www.youtube.com/watch?v=vid1"],
      ["Sharpening chisels", "https://www.youtube.com/watch?v=vid2"],
    ]);
    const video = (await call(`/api/items/${items[0]!.id}`)).body;
    expect(video.contentMarkdown).toContain("We cut the legs.");
    expect(video.contentMarkdown).toContain("https://i.ytimg.com/vi/vid1/hqdefault.jpg");
    // The thumbnail is the item's media too (a web capture of its https address).
    const media = (await call(`/api/items/${items[0]!.id}/media`)).body.media as { kind: string; url: string }[];
    expect(media.map((m) => [m.kind, m.url])).toContainEqual(["web", "https://i.ytimg.com/vi/vid1/hqdefault.jpg"]);
  });

  test("X articles through the operator's RSS bridge template", async () => {
    const url = feeds.feed("/x/SomeWriter.rss", rss2("SomeWriter on X", entries("x", 2)));
    const r = await create({ type: "x_articles", username: "@SomeWriter", backfillItems: 1 });
    expect(r.initialRun).toEqual({ status: "ok", itemsAdded: 1, entriesSeen: 2 });
    expect(r.source).toMatchObject({ name: "SomeWriter on X", target: "somewriter", lastError: null });
    expect(feeds.hits(new URL(url).pathname)).toBe(1);
  });
});

describe("polling", () => {
  test("from_now adds nothing at first; later polls add what is new, oldest first, each once; both replicas poll each source exactly once per interval", async () => {
    let current = entries("live", 3);
    const url = feeds.feed("/live.xml", () => rss2("Live Feed", current));
    const r = await create({ type: "rss", feedUrl: url });
    expect(r.initialRun).toEqual({ status: "ok", itemsAdded: 0, entriesSeen: 3 });
    expect(feeds.hits("/live.xml")).toBe(1);
    await round();
    expect(feeds.hits("/live.xml")).toBe(2);
    expect(await itemsOf("Live Feed")).toEqual([]);
    // Two new entries at the top of the feed.
    current = [{ id: "live-new-2", title: "Newer", link: "http://site.test/live/n2", at: t0 + 200 }, { id: "live-new-1", title: "New", link: "http://site.test/live/n1", at: t0 + 100 }, ...current];
    await round();
    expect(feeds.hits("/live.xml")).toBe(3);
    expect((await itemsOf("Live Feed")).map((i) => i.title)).toEqual(["Newer", "New"]);
    await round();
    await round();
    expect(feeds.hits("/live.xml")).toBe(5);
    expect((await itemsOf("Live Feed")).map((i) => i.title)).toEqual(["Newer", "New"]);
    const s = await source(r.source.id);
    expect(s).toMatchObject({ itemCount: 2, lastError: null });
    expect(s.lastRunAt).toBe(clock);
    expect(s.nextPollAt).toBe(clock + 3600);
    const runs = (await events(r.source.id)).filter((e) => e.type === "run");
    expect(runs.map((e) => e.itemsAdded)).toEqual([0, 0, 2, 0, 0]);
  });

  test("ETag: the next poll sends If-None-Match; a 304 is a successful run that adds nothing", async () => {
    let body = rss2("Tagged Feed", entries("etag", 2));
    let served304 = 0;
    const url = feeds.route("/etag.xml", (req) => {
      const tag = `"v${body.length}"`;
      if (req.headers.get("if-none-match") === tag) {
        served304++;
        return new Response(null, { status: 304, headers: { etag: tag } });
      }
      return new Response(body, { headers: { "content-type": "application/rss+xml", etag: tag } });
    });
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 10 });
    expect(r.initialRun.itemsAdded).toBe(2);
    await round();
    expect(served304).toBe(1);
    expect(feeds.requests.filter((q) => q.path === "/etag.xml").map((q) => q.ifNoneMatch)).toEqual([null, `"v${body.length}"`]);
    const latest = (await events(r.source.id))[0]!;
    expect(latest).toMatchObject({ type: "run", itemsAdded: 0, detail: { notModified: true } });
    expect(await source(r.source.id)).toMatchObject({ itemCount: 2, lastError: null, consecutiveFailures: 0 });
    // Changed: the whole feed again, the new entry added.
    body = rss2("Tagged Feed", [{ id: "etag-new", title: "Fresh", link: "http://site.test/etag/new", at: t0 + 10 }, ...entries("etag", 2)]);
    await round();
    expect((await itemsOf("Tagged Feed")).map((i) => i.title)).toEqual(["Fresh", "etag entry 0", "etag entry 1"]);
  });

  test("1,000 entries: backfillItems and initialImportCount bound the first run; the next adds only new entries", async () => {
    let current = entries("big", 1000);
    const url = feeds.feed("/big.xml", () => rss2("Big Feed", current));
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 50, initialImportCount: 10 });
    expect(r.initialRun).toEqual({ status: "ok", itemsAdded: 10, entriesSeen: 1000 });
    const first = await itemsOf("Big Feed");
    expect(first.map((i) => i.title)).toEqual(Array.from({ length: 10 }, (_, i) => `big entry ${i}`));
    current = [...entries("big-new", 3), ...current];
    await round();
    expect((await itemsOf("Big Feed")).length).toBe(13);
    expect((await source(r.source.id)).itemCount).toBe(13);
  });

  test("a broken feed fails with a clear lastError and backs off; it recovers without duplicating items", async () => {
    let broken = true;
    const good = rss2("Flaky Feed", entries("flaky", 2));
    const url = feeds.route("/flaky.xml", () => (broken ? new Response("<html><body>oops</body></html>", { headers: { "content-type": "text/html" } }) : new Response(good)));
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 5 });
    expect(r.initialRun.status).toBe("failed");
    expect(r.initialRun.error).toContain("not a readable RSS, Atom, RDF or JSON feed");
    expect(r.source).toMatchObject({ consecutiveFailures: 1, lastSuccessAt: null, itemCount: 0 });
    expect(r.source.nextPollAt - r.source.lastRunAt).toBe(2 * 3600);
    await round();
    let s = await source(r.source.id);
    expect(s.consecutiveFailures).toBe(2);
    expect(s.nextPollAt - s.lastRunAt).toBe(4 * 3600);
    expect((await events(r.source.id))[0]).toMatchObject({ type: "error", message: s.lastError });
    broken = false;
    await round();
    s = await source(r.source.id);
    expect(s).toMatchObject({ consecutiveFailures: 0, lastError: null, itemCount: 2 });
    expect(s.nextPollAt - s.lastRunAt).toBe(3600);
    broken = true;
    await round();
    broken = false;
    await round();
    expect((await itemsOf("Flaky Feed")).map((i) => i.title)).toEqual(["flaky entry 0", "flaky entry 1"]);
  });

  test("pause stops polling; resume makes the source due again", async () => {
    const url = feeds.feed("/paused.xml", rss2("Paused Feed", entries("paused", 1)));
    const r = await create({ type: "rss", feedUrl: url });
    await call(`/api/sources/${r.source.id}/pause`, { json: {} });
    await round();
    await round();
    expect(feeds.hits("/paused.xml")).toBe(1);
    await call(`/api/sources/${r.source.id}/resume`, { json: {} });
    await round();
    expect(feeds.hits("/paused.xml")).toBe(2);
  });

  test("a shorter interval brings the next poll sooner, and polls follow the new interval", async () => {
    const url = feeds.feed("/sooner.xml", rss2("Sooner Feed", entries("sooner", 1)));
    const r = await create({ type: "rss", feedUrl: url });
    const ran = r.source.lastRunAt as number;
    expect(r.source.nextPollAt).toBe(ran + 3600);
    const changed = await call(`/api/sources/${r.source.id}/settings`, { json: { pollEveryMin: 5 } });
    expect(changed.body.source.nextPollAt).toBeLessThanOrEqual(ran + 3600);
    const sooner = changed.body.source.nextPollAt as number;
    // Every other source's next poll is later than this one's (an interval, or a backoff, after its latest run).
    await a.polls.runDue(sooner);
    expect(feeds.hits("/sooner.xml")).toBe(2);
    expect(await source(r.source.id)).toMatchObject({ lastRunAt: sooner, nextPollAt: sooner + 300 });
    // From then on, one poll per five minutes.
    await a.polls.runDue(sooner + 299);
    expect(feeds.hits("/sooner.xml")).toBe(2);
    await a.polls.runDue(sooner + 300);
    expect(feeds.hits("/sooner.xml")).toBe(3);
  });

  test("the plan's quota stops a run with a clear lastError; the entries left are added once there is room", async () => {
    const url = feeds.feed("/quota.xml", rss2("Quota Feed", entries("quota", 5)));
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 5 }, bobKey);
    // Bob's plan holds 3 items.
    expect(r.initialRun).toMatchObject({ status: "failed", itemsAdded: 3, entriesSeen: 5 });
    expect(r.initialRun.error).toContain("quota reached");
    expect(r.initialRun.error).toContain("2 entries are tried again next run");
    expect(r.source).toMatchObject({ itemCount: 3, lastError: r.initialRun.error });
    const added = await itemsOf("Quota Feed", bobKey);
    // Oldest first: the three oldest made it.
    expect(added.map((i) => i.title)).toEqual(["quota entry 2", "quota entry 3", "quota entry 4"]);
    // Bob's count is per billing cycle: the next run is refused again, the same two entries still waiting (not seen).
    await round();
    const s = (await call(`/api/sources/${r.source.id}`, { key: bobKey })).body.source;
    expect(s).toMatchObject({ itemCount: 3, consecutiveFailures: 2 });
    expect(s.lastError).toContain("2 entries are tried again next run");
    expect((await itemsOf("Quota Feed", bobKey)).length).toBe(3);
  });
});

describe("rollup and summaries", () => {
  const story = (topic: string) =>
    `<p>${topic} engines got faster this year. The weather in the valley was pleasant. The ${topic} engine design keeps fuel use low in ${topic} engines. ` +
    `Our cat slept most of the afternoon. Fuel use matters for ${topic} engines and ${topic} engine makers alike. Bread tastes better with butter.</p>`;

  test("rollup: a run that finds N new entries adds one digest item listing them; the entries are still marked seen", async () => {
    let current = entries("roll", 2);
    const url = feeds.feed("/rollup.xml", () => rss2("Rolled Feed", current));
    const r = await create({ type: "rss", feedUrl: url, rollupEnabled: true, defaultTags: ["digest"] });
    expect(r.initialRun).toMatchObject({ status: "ok", itemsAdded: 0 });
    current = [
      { id: "roll-new-2", title: "Second news", link: "http://site.test/roll/n2", at: t0 + 200, html: story("Diesel") },
      { id: "roll-new-1", title: "First news", link: "http://site.test/roll/n1", at: t0 + 100 },
      { id: "roll-new-0", title: "Linkless news", at: t0 + 50 },
      ...current,
    ];
    await round();
    const items = await itemsOf("Rolled Feed");
    const day = new Date(clock * 1000).toISOString().slice(0, 10);
    expect(items.map((i) => [i.title, i.tags])).toEqual([[`Rolled Feed: 3 new entries, ${day}`, ["digest"]]]);
    expect(items[0]!.url).toMatch(new RegExp(`^https://inbox\\.localhost/sources/${r.source.id}/digests/[0-9a-f]{32}$`));
    const md = (await call(`/api/items/${items[0]!.id}`)).body.contentMarkdown as string;
    expect(md).toContain("[Second news](http://site.test/roll/n2)");
    expect(md).toContain("[First news](http://site.test/roll/n1)");
    expect(md).toContain("Linkless news");
    // Each entry's summary: the long one's three most telling sentences, the short one's own text.
    expect(md).toContain("Fuel use matters for Diesel engines");
    expect(md).not.toContain("cat slept");
    expect(md).toContain("First news body");
    // Seen: the next runs add nothing more.
    await round();
    expect((await itemsOf("Rolled Feed")).length).toBe(1);
    const runs = (await events(r.source.id)).filter((e) => e.type === "run");
    expect(runs.map((e) => [e.itemsAdded, e.detail.entriesSeen])).toEqual([[0, 5], [1, 5], [0, 2]]);
  });

  test("autoSummarize: an item of such a source carries a summary above its content; another source's does not", async () => {
    const list = [{ id: "sum-1", title: "Engines", link: "http://site.test/sum/1", at: t0, html: story("Steam") }];
    const summed = await create({ type: "rss", feedUrl: feeds.feed("/summed.xml", rss2("Summed Feed", list)), backfillItems: 1, autoSummarize: true });
    const plain = await create({ type: "rss", feedUrl: feeds.feed("/plain.xml", rss2("Plain Feed", [{ ...list[0]!, link: "http://site.test/sum/2" }])), backfillItems: 1 });
    expect([summed.initialRun.itemsAdded, plain.initialRun.itemsAdded]).toEqual([1, 1]);
    const md = async (name: string) => (await call(`/api/items/${(await itemsOf(name))[0]!.id}`)).body.contentMarkdown as string;
    const withSummary = await md("Summed Feed");
    expect(withSummary).toContain("**Summary:** Steam engines got faster this year. The Steam engine design keeps fuel use low in Steam engines. Fuel use matters for Steam engines and Steam engine makers alike.");
    expect(withSummary).toContain("cat slept");
    const without = await md("Plain Feed");
    expect(without).not.toContain("Summary:");
    expect(without).toContain("cat slept");
  });
});

describe("discovery and refusals", () => {
  test("a site address: its feed from <link rel=alternate>, else a common path; the feed URL is the target", async () => {
    feeds.route("/blog/", () => new Response(`<html><head><link rel="alternate" type="application/atom+xml" href="/blog/atom.xml"></head><body>hi</body></html>`, { headers: { "content-type": "text/html" } }));
    const feedUrl = feeds.feed("/blog/atom.xml", atom("Linked Blog", entries("linked", 1)), "application/atom+xml");
    const r = await create({ type: "rss", input: `${feeds.base}/blog/` });
    expect(r.source.target).toBe(feedUrl);
    expect(r.initialRun.status).toBe("ok");
    const again = await call("/api/sources", { json: { type: "rss", feedUrl } });
    expect(again.body).toMatchObject({ existing: true, source: { id: r.source.id } });

    feeds.route("/", () => new Response("<html><head><title>No links</title></head></html>", { headers: { "content-type": "text/html" } }));
    // /feed answers 404; /rss.xml is the first common path that is a feed.
    const common = feeds.feed("/rss.xml", rss2("Common Path", entries("common", 1)));
    expect((await create({ type: "rss", input: `${feeds.base}/` })).source.target).toBe(common);
  });

  test("a site with no feed answers 400 feed_not_found; file: and other schemes 400", async () => {
    feeds.route("/nofeed/", () => new Response("<html><body>nothing</body></html>", { headers: { "content-type": "text/html" } }));
    // Common paths are tried at the site's root; point them at a port where nothing listens.
    const none = await call("/api/sources", { json: { type: "rss", input: "http://127.0.0.1:9/nofeed/" } });
    expect({ status: none.status, error: none.body.error }).toEqual({ status: 400, error: "feed_not_found" });
    expect(none.body.message).toContain("no feed found");
    for (const feedUrl of ["file:///etc/passwd", "ftp://example.test/feed", "javascript:alert(1)"]) {
      const r = await call("/api/sources", { json: { type: "rss", feedUrl } });
      expect({ feedUrl, status: r.status, error: r.body.error }).toEqual({ feedUrl, status: 400, error: "validation_failed" });
    }
    const input = await call("/api/sources", { json: { type: "rss", input: "file:///etc/passwd" } });
    expect(input.status).toBe(400);
  });

  test("a feed that redirects to a refused address fails its run with url_not_allowed, and nothing is added", async () => {
    const url = feeds.route("/redirect.xml", () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } }));
    const r = await create({ type: "rss", feedUrl: url, backfillItems: 5 });
    expect(r.initialRun.status).toBe("failed");
    expect(r.initialRun.error).toContain("url_not_allowed");
    expect(r.source.itemCount).toBe(0);
  });
});

describe("leases and the timer", () => {
  test("a poll claimed by one replica is not run by another; when that replica stalls past the lease, another runs it", async () => {
    let stall = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const url = feeds.route("/stalled.xml", async () => {
      if (stall) await gate;
      return new Response(rss2("Stalled Feed", entries("stalled", 1)));
    });
    const r = await create({ type: "rss", feedUrl: url });
    stall = true;
    const now = later();
    const stalled = a.polls.runDue(now);
    await eventually(() => feeds.hits("/stalled.xml") === 2);
    // Replica a holds the poll's lease: b does not poll it at the same time.
    await b.polls.runDue(now);
    expect(feeds.hits("/stalled.xml")).toBe(2);
    // Past the lease (a replica that died mid-poll), b takes it over. The lease is TROVE_JOB_LEASE_MS from a's
    // clock, which stays at `now` while it runs.
    const leaseSec = Math.ceil(trove.runtime.config.jobLeaseMs / 1000);
    stall = false;
    await b.polls.runDue(now + leaseSec + 1);
    expect(feeds.hits("/stalled.xml")).toBe(3);
    expect(await source(r.source.id)).toMatchObject({ lastRunAt: now + leaseSec + 1, lastError: null });
    // The stalled run ends late: its poll is no longer a's, so b's record stands and a's adds no event.
    release();
    await stalled;
    expect((await source(r.source.id)).lastRunAt).toBe(now + leaseSec + 1);
    expect((await events(r.source.id)).map((e) => e.type)).toEqual(["run", "run", "created"]);
  });

  test("with its timer on, a replica polls a resumed source by itself", async () => {
    const timed = await startSources(trove.runtime, { maxSleepMs: 100 });
    try {
      const url = feeds.feed("/timed.xml", rss2("Timed Feed", entries("timed", 1)));
      const r = await create({ type: "rss", feedUrl: url });
      await call(`/api/sources/${r.source.id}/pause`, { json: {} });
      await call(`/api/sources/${r.source.id}/resume`, { json: {} });
      await eventually(() => feeds.hits("/timed.xml") === 2);
      await eventually(async () => (await events(r.source.id))[0]?.type === "run");
    } finally {
      await timed.stop();
    }
  });
});
