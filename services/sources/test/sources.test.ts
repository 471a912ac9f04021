// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. Sources:
// create per type, equal sources answered instead of duplicated (also under a race), validation, the three views
// and who may see them, pause and resume, settings, the event log, delete, and another account's sources.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { migrateModules } from "@trove/host";
import { addClientKey, bobKey, startTrove, type TestTrove } from "@trove/testing";
import { sourcesService, startSources } from "../index.ts";

let trove: TestTrove;
let sources: Awaited<ReturnType<typeof startSources>>;
beforeAll(async () => {
  // The sources service without its timer: a create's first poll is the only run (polling: polling.test.ts).
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_INBOX_DOMAIN: "In.Trove.Test" }, { without: ["sources"] });
  await migrateModules([sourcesService], trove.runtime.database);
  sources = await startSources(trove.runtime, { timer: false });
});
afterAll(async () => {
  await sources.stop();
  await trove.stop();
});

let serial = 0;
/** A feed address no other test uses (port 9 on loopback: nothing there, so each create's first poll fails). */
const feed = (suffix = "") => `http://127.0.0.1:9/sources-test/${++serial}/${crypto.randomUUID().slice(0, 8)}${suffix}`;

async function call(path: string, init: { method?: string; json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), json: init.json, key: init.key });
  return { status: res.status, body: await res.json() };
}
const create = (json: Record<string, unknown>, key?: string) => call("/api/sources", { json, key });
async function created(json: Record<string, unknown>) {
  const r = await create(json);
  expect({ status: r.status, body: r.status === 200 ? null : r.body }).toEqual({ status: 200, body: null });
  return r.body.source;
}

describe("creating sources", () => {
  test("an rss source: the manifest with its defaults, the same in get and list", async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = feed();
    const r = await create({ type: "rss", feedUrl: url });
    expect(r.status).toBe(200);
    expect(r.body.existing).toBe(false);
    const s = r.body.source;
    // The first poll ran before the answer and failed (nothing listens there): the source exists and says why.
    expect(s).toMatchObject({ type: "rss", name: "127.0.0.1", status: "syncing", pollEveryMin: 60, target: url, inboxAddress: null, itemCount: 0, consecutiveFailures: 1, lastSuccessAt: null });
    expect(s.lastError).toContain("connect");
    expect(r.body.initialRun).toEqual({ status: "failed", itemsAdded: 0, entriesSeen: 0, error: s.lastError });
    expect(s.lastRunAt).toBeGreaterThanOrEqual(before);
    // Backoff: two intervals after one failure.
    expect(s.nextPollAt).toBeGreaterThanOrEqual(before + 2 * 3600);
    expect(s.createdAt).toBeGreaterThanOrEqual(before);
    // The manifest carries no configuration, settings or cursors.
    expect(s.config).toBeUndefined();
    expect(s.settings).toBeUndefined();
    expect(s.cursors).toBeUndefined();
    expect((await call(`/api/sources/${s.id}`)).body.source).toEqual(s);
    const list = (await call("/api/sources?limit=1000")).body;
    expect(list.sources.find((x: { id: string }) => x.id === s.id)).toEqual(s);
    expect(list.count).toBeGreaterThanOrEqual(1);
  });

  test("an equal source is answered, not created again: same feed spelled differently, and 10 racing creates", async () => {
    const url = feed("/feed.xml");
    const first = await created({ type: "rss", feedUrl: url, name: "Mine" });
    const spelled = url.replace("http://127.0.0.1:9", "HTTP://127.0.0.1:9") + "#top";
    const again = await create({ type: "rss", feedUrl: spelled, name: "Other name" });
    expect(again.status).toBe(200);
    expect(again.body.existing).toBe(true);
    expect(again.body.source.id).toBe(first.id);
    expect(again.body.source.name).toBe("Mine");

    const raced = feed();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create({ type: "rss", feedUrl: raced })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.source.id)).size).toBe(1);
    expect(answers.filter((a) => a.body.existing === false)).toHaveLength(1);
  });

  test("youtube channels by id or /channel/ URL are one source; handles need the network and say so", async () => {
    const id = `UC${"a1B2c3D4e5F6g7H8i9J0_-".slice(0, 22)}`;
    const byId = await created({ type: "youtube_channel", channelId: id });
    expect(byId).toMatchObject({ type: "youtube_channel", target: id, name: id });
    const byUrl = await create({ type: "youtube_channel", channel: `https://www.youtube.com/channel/${id}/videos` });
    expect(byUrl.body).toMatchObject({ existing: true, source: { id: byId.id } });

    const handle = await create({ type: "youtube_channel", handle: "@somebody" });
    expect(handle.status).toBe(400);
    expect(handle.body.error).toBe("validation_failed");
    expect(handle.body.message).toContain("without the network");
    const handleUrl = await create({ type: "youtube_channel", channel: "https://www.youtube.com/@somebody" });
    expect(handleUrl.status).toBe(400);
    expect((await create({ type: "youtube_channel", channelId: "UCshort" })).status).toBe(400);
    expect((await create({ type: "youtube_channel", channel: "https://videos.example.test/channel/UCxxxxxxxxxxxxxxxxxxxxxx" })).status).toBe(400);
  });

  test("x_articles: @Name and name are the same account", async () => {
    const name = `Writer_${serial++}`.slice(0, 15);
    const a = await created({ type: "x_articles", username: `@${name}` });
    // No RSS bridge configured (TROVE_X_RSS_URL_TEMPLATE): the source says why it does nothing and looks again in a day.
    expect(a.lastError).toContain("TROVE_X_RSS_URL_TEMPLATE");
    expect(a.consecutiveFailures).toBe(0);
    expect(a.nextPollAt - a.lastRunAt).toBe(86_400);
    expect((await call(`/api/sources/${a.id}/events`)).body.events.map((e: { type: string }) => e.type)).toEqual(["created"]);
    expect(a).toMatchObject({ type: "x_articles", target: name.toLowerCase(), name: `@${name}` });
    const b = await create({ type: "x_articles", handle: name.toLowerCase() });
    expect(b.body).toMatchObject({ existing: true, source: { id: a.id } });
    expect((await create({ type: "x_articles", username: "not a name!" })).status).toBe(400);
  });

  test("email inboxes: each create is a new, unguessable address at the operator's domain, never polled", async () => {
    const a = await created({ type: "email_inbox", name: "Newsletters" });
    const b = await created({ type: "email_inbox" });
    expect(a.id).not.toBe(b.id);
    expect(a.inboxAddress).toMatch(/^[a-z2-7]{20}@in\.trove\.test$/);
    expect(b.inboxAddress).not.toBe(a.inboxAddress);
    expect(a).toMatchObject({ name: "Newsletters", target: a.inboxAddress, nextPollAt: null, status: "syncing" });
    expect(b.name).toBe("Inbox");
  });

  test("bad creates answer 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "rss" }, "feedUrl"],
      [{ type: "rss", feedUrl: "file:///etc/passwd" }, "feedUrl"],
      [{ type: "rss", feedUrl: "ftp://files.example.test/feed" }, "feedUrl"],
      [{ type: "rss", feedUrl: "not a url" }, "feedUrl"],
      [{ type: "rss", feedUrl: "https://user:secret@feeds.example.test/rss" }, "feedUrl"],
      [{ type: "rss", feedUrl: feed(), channelId: "UCaaaaaaaaaaaaaaaaaaaaaa" }, "channelId"],
      [{ type: "rss", feedUrl: feed(), backfillMode: "days" }, "backfillDays"],
      [{ type: "rss", feedUrl: feed(), backfillMode: "articles" }, "backfillItems"],
      [{ type: "rss", feedUrl: feed(), backfillMode: "from_now", backfillDays: 3 }, "backfillDays"],
      [{ type: "rss", feedUrl: feed(), defaultTags: ["  "] }, "defaultTags"],
      [{ type: "rss", feedUrl: feed(), smartTagRules: [{ field: "title", contains: " ", tags: ["x"] }] }, "smartTagRules[0].contains"],
      [{ type: "email_inbox", pollEveryMin: 5 }, "pollEveryMin"],
      [{ type: "x_articles" }, "username"],
      [{ type: "youtube_channel" }, "channelId"],
    ];
    for (const [json, field] of cases) {
      const r = await create(json);
      expect({ json, status: r.status, error: r.body.error }).toEqual({ json, status: 400, error: "validation_failed" });
      expect({ json, fields: Object.keys(r.body.fields ?? {}) }).toEqual({ json, fields: [field] });
    }
    // Refused by the schema: the gateway names the field too.
    // A list of 20,000 bad rules is one bounded answer naming the list, not 20,000 entries.
    const many = await create({ type: "rss", feedUrl: feed(), smartTagRules: Array.from({ length: 20_000 }, () => ({ field: "nowhere" })) });
    expect(many.status).toBe(400);
    expect(Object.keys(many.body.fields)).toEqual(["smartTagRules"]);
    expect(JSON.stringify(many.body).length).toBeLessThan(2_000);
    const lone = await create({ type: "rss", feedUrl: feed(), smartTagRules: "x" });
    expect(lone.status).toBe(400);
    expect(Object.keys(lone.body.fields).every((k) => k.startsWith("smartTagRules"))).toBe(true);
    for (const json of [
      { type: "podcast", feedUrl: feed() },
      { type: "rss", feedUrl: feed(), pollEveryMin: 0 },
      { type: "rss", feedUrl: feed(), pollEveryMin: 1e12 },
      { type: "rss", feedUrl: feed(), smartTagRules: [{ field: "body", contains: "x", tags: ["x"] }] },
      { type: "rss", feedUrl: feed(), smartTagRules: [{ field: "title", contains: "x", tags: [] }] },
    ]) {
      const r = await create(json);
      expect({ json, status: r.status, error: r.body.error }).toEqual({ json, status: 400, error: "validation_failed" });
    }
  });
});

describe("views and who may see them", () => {
  test("include=settings shows settings and config with credentials masked; include=sensitive shows them as stored", async () => {
    const url = feed("?token=s3cret&page=2");
    const s = await created({
      type: "rss",
      feedUrl: url,
      backfillMode: "articles",
      backfillItems: 20,
      defaultTags: ["Feeds", "feeds", " news "],
      smartTagRules: [{ field: "title", contains: " Rust ", tags: ["rust"] }],
      autoSummarize: true,
    });
    expect(s.target).toContain("token=***");
    expect(JSON.stringify(s)).not.toContain("s3cret");
    const withSettings = (await call(`/api/sources/${s.id}?include=settings`)).body.source;
    expect(withSettings.settings).toEqual({
      defaultTags: ["Feeds", "news"],
      smartTagRules: [{ field: "title", contains: "Rust", tags: ["rust"] }],
      expandFullContent: false,
      autoSummarize: true,
      rollupEnabled: false,
    });
    expect(withSettings.config).toMatchObject({ backfillMode: "articles", backfillItems: 20 });
    expect(withSettings.config.feedUrl).toContain("token=***");
    expect(withSettings.config.feedUrl).toContain("page=2");
    expect(JSON.stringify(withSettings)).not.toContain("s3cret");
    expect(withSettings.cursors).toBeUndefined();
    const sensitive = (await call(`/api/sources/${s.id}?include=sensitive`)).body.source;
    expect(sensitive.config.feedUrl).toBe(url);
    expect(sensitive.target).toBe(url);
    expect(sensitive.cursors).toEqual({ nameFromFeed: true });
    expect(sensitive.lastError).not.toContain("s3cret");
    const listed = (await call("/api/sources?include=settings&type=rss&limit=1000")).body.sources;
    expect(listed.every((x: { type: string; settings?: unknown }) => x.type === "rss" && x.settings !== undefined)).toBe(true);
  });

  test("client keys: read-write sees manifest and settings but not sensitive, and cannot change sources; read-only sees the manifest only", async () => {
    const s = await created({ type: "rss", feedUrl: feed() });
    const rw = await addClientKey(trove);
    const ro = await addClientKey(trove, { access: "read_only" });
    expect((await call(`/api/sources/${s.id}`, { key: rw })).status).toBe(200);
    expect((await call(`/api/sources/${s.id}?include=settings`, { key: rw })).status).toBe(200);
    expect((await call(`/api/sources/${s.id}?include=sensitive`, { key: rw })).body.error).toBe("forbidden");
    expect((await create({ type: "rss", feedUrl: feed() }, rw)).status).toBe(403);
    expect((await call(`/api/sources/${s.id}/pause`, { method: "POST", key: rw })).status).toBe(403);
    expect((await call("/api/sources", { key: ro })).status).toBe(200);
    const roSettings = await call("/api/sources?include=settings", { key: ro });
    expect(roSettings.status).toBe(403);
    expect(roSettings.body.error).toBe("forbidden");
    expect((await call(`/api/sources/${s.id}?include=sensitive`, { key: ro })).status).toBe(403);
    expect((await call(`/api/sources/${s.id}/settings`, { json: { name: "x" }, key: ro })).status).toBe(403);
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["anything"] } });
    expect((await call("/api/sources", { key: scoped })).status).toBe(403);
  });

  test("another account's source is not found anywhere, and its list is its own", async () => {
    const s = await created({ type: "rss", feedUrl: feed() });
    for (const [path, init] of [
      [`/api/sources/${s.id}`, {}],
      [`/api/sources/${s.id}/events`, {}],
      [`/api/sources/${s.id}/pause`, { method: "POST" }],
      [`/api/sources/${s.id}/resume`, { method: "POST" }],
      [`/api/sources/${s.id}/settings`, { json: { name: "taken" } }],
      [`/api/sources/${s.id}/default-tags`, { json: { tags: ["x"] } }],
      [`/api/sources/${s.id}/rollup`, { json: { enabled: true } }],
      [`/api/sources/${s.id}/delete`, { method: "POST" }],
    ] as const) {
      const r = await call(path, { ...init, key: bobKey });
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 404, error: "not_found" });
    }
    expect((await call("/api/sources?limit=1000", { key: bobKey })).body.sources.some((x: { id: string }) => x.id === s.id)).toBe(false);
    // Bob following the same feed gets his own source.
    const bobs = await create({ type: "rss", feedUrl: s.target }, bobKey);
    expect(bobs.body.existing).toBe(false);
    expect(bobs.body.source.id).not.toBe(s.id);
    expect((await call(`/api/sources/${s.id}`)).body.source.name).toBe(s.name);
  });
});

describe("lifecycle", () => {
  test("pause and resume: status and next poll, idempotent, each change in the event log newest first", async () => {
    const s = await created({ type: "rss", feedUrl: feed() });
    const paused = await call(`/api/sources/${s.id}/pause`, { method: "POST" });
    expect(paused.body.source).toMatchObject({ status: "paused", nextPollAt: null });
    expect((await call(`/api/sources/${s.id}/pause`, { method: "POST" })).body.source.status).toBe("paused");
    const before = Math.floor(Date.now() / 1000);
    const resumed = (await call(`/api/sources/${s.id}/resume`, { method: "POST" })).body.source;
    expect(resumed.status).toBe("syncing");
    expect(resumed.nextPollAt).toBeGreaterThanOrEqual(before);
    expect((await call(`/api/sources/${s.id}/resume`, { method: "POST" })).body.source.status).toBe("syncing");
    const events = (await call(`/api/sources/${s.id}/events`)).body;
    expect(events.events.map((e: { type: string }) => e.type)).toEqual(["resumed", "paused", "error", "created"]);
    expect(events.count).toBe(4);
    const page = (await call(`/api/sources/${s.id}/events?limit=1&offset=1`)).body;
    expect(page).toMatchObject({ limit: 1, offset: 1, count: 4 });
    expect(page.events.map((e: { type: string }) => e.type)).toEqual(["paused"]);
    // A paused inbox resumes without a poll time: mail is taken, nothing is polled.
    const inbox = await created({ type: "email_inbox" });
    await call(`/api/sources/${inbox.id}/pause`, { method: "POST" });
    expect((await call(`/api/sources/${inbox.id}/resume`, { method: "POST" })).body.source).toMatchObject({ status: "syncing", nextPollAt: null });
  });

  test("settings change only what is given; default-tags and rollup are shortcuts; bad settings answer 400", async () => {
    const s = await created({ type: "rss", feedUrl: feed(), defaultTags: ["a"], autoSummarize: true });
    const r = await call(`/api/sources/${s.id}/settings`, { json: { name: " Renamed ", pollEveryMin: 5, smartTagRules: [{ field: "url", contains: "github", tags: ["code"] }] } });
    expect(r.status).toBe(200);
    expect(r.body.source).toMatchObject({
      name: "Renamed",
      pollEveryMin: 5,
      settings: { defaultTags: ["a"], autoSummarize: true, expandFullContent: false, rollupEnabled: false, smartTagRules: [{ field: "url", contains: "github", tags: ["code"] }] },
    });
    // A shorter interval brings the next poll no later than one new interval from now.
    expect(r.body.source.nextPollAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 5 * 60);
    const tags = await call(`/api/sources/${s.id}/default-tags`, { json: { tags: ["x", "y"] } });
    expect(tags.body.source.settings.defaultTags).toEqual(["x", "y"]);
    const rollup = await call(`/api/sources/${s.id}/rollup`, { json: { enabled: true } });
    expect(rollup.body.source.settings).toMatchObject({ rollupEnabled: true, defaultTags: ["x", "y"], autoSummarize: true });
    expect((await call(`/api/sources/${s.id}/settings`, { json: {} })).body.source.name).toBe("Renamed");

    for (const json of [{ name: "  " }, { smartTagRules: [{ field: "title", contains: "", tags: ["x"] }] }, { pollEveryMin: 0 }, { defaultTags: "x" }]) {
      const bad = await call(`/api/sources/${s.id}/settings`, { json });
      expect({ json, status: bad.status, error: bad.body.error }).toEqual({ json, status: 400, error: "validation_failed" });
    }
    expect((await call(`/api/sources/${s.id}/rollup`, { json: {} })).status).toBe(400);
    const events = (await call(`/api/sources/${s.id}/events`)).body.events;
    expect(events[0]).toMatchObject({ type: "settings_changed", detail: { fields: ["rollupEnabled"] } });
  });

  test("delete answers ok; the source and its events are gone; a second delete is 404", async () => {
    const s = await created({ type: "rss", feedUrl: feed() });
    expect(await call(`/api/sources/${s.id}/delete`, { method: "POST" })).toEqual({ status: 200, body: { ok: true } });
    expect((await call(`/api/sources/${s.id}`)).status).toBe(404);
    expect((await call(`/api/sources/${s.id}/events`)).status).toBe(404);
    expect((await call(`/api/sources/${s.id}/delete`, { method: "POST" })).status).toBe(404);
    // The feed can be followed again.
    expect((await create({ type: "rss", feedUrl: s.target })).body.existing).toBe(false);
  });
});
