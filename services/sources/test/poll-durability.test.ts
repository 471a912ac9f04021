// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS) with sources replicas the test
// starts and stops, and the embedded deployment as its own process killed with SIGKILL; local feeds on 127.0.0.1. A
// source's polls are durable work: a first poll that its process could not finish (a stop that gives it back, a
// crash) runs again, an installation whose sources were scheduled before the work queue keeps polling them, and
// what a user sees is the source's runs, its items and its events.
import { afterEach, describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { Migrator, type Migration } from "kysely/migration";
import { migrateModules } from "@trove/host";
import { acceptWrites, eventually, refuseWrites, spawnEmbedded, startTrove, testStack, type Api } from "@trove/testing";
import { sourcesService, startSources } from "../index.ts";
import { runNotFinished } from "../source-runner.ts";
import { feedServer, rss2 } from "./feeds.ts";

/** A feed whose first request is held until `release()`; later requests are answered at once. */
function heldOnce(feeds: ReturnType<typeof feedServer>, path: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let seen = 0;
  const url = feeds.route(path, async () => {
    if (++seen === 1) await gate;
    return new Response(rss2("Restarted Feed", [{ id: "r1", title: "Restarted entry", link: "http://site.test/restarted/1", at: 1_700_000_000 }]), {
      headers: { "content-type": "application/rss+xml" },
    });
  });
  return { url, release };
}

/** The one source of the account, once its first run is recorded. */
async function ranSource(api: Api) {
  let source: any;
  await eventually(async () => {
    const res = await api("/api/sources");
    if (res.status !== 200) return false;
    source = (await res.json()).sources[0];
    return source?.lastRunAt != null;
  }, 30_000);
  return source;
}

async function expectPolledOnce(api: Api, source: any) {
  expect(source).toMatchObject({ itemCount: 1, lastError: null, consecutiveFailures: 0 });
  expect(source.lastSuccessAt).not.toBeNull();
  const events = (await (await api(`/api/sources/${source.id}/events`)).json()).events as { type: string }[];
  expect(events.map((e) => e.type)).toEqual(["run", "created"]);
  const items = (await (await api(`/api/items?source=${encodeURIComponent(source.name)}`)).json()).items as { title: string }[];
  expect(items.map((i) => i.title)).toEqual(["Restarted entry"]);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("a create's first poll outlives its process", () => {
  test("a replica stopped during a create's first poll gives the poll back: the next replica runs it, the create answers 503", async () => {
    const feeds = feedServer();
    cleanups.push(() => feeds.stop());
    // No grace: the stopping replica gives the running poll back at once instead of waiting for the held feed.
    const trove = await startTrove({ TROVE_STOP_GRACE_MS: "0", TROVE_RATE_LIMIT: "100000" }, { without: ["sources"] });
    cleanups.push(() => trove.stop());
    await migrateModules([sourcesService], trove.runtime.database);
    const first = await startSources(trove.runtime);
    const feed = heldOnce(feeds, "/restart.xml");
    cleanups.push(() => feed.release());
    const create = () =>
      trove.api("/api/sources", { method: "POST", json: { type: "rss", feedUrl: feed.url, backfillItems: 1 } }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const creating = create();
    cleanups.push(async () => void (await creating));
    await eventually(() => feeds.hits("/restart.xml") === 1, 30_000);
    await first.stop();
    // Another replica (its own worker running) takes the poll up: a second request to the feed, answered at once.
    const second = await startSources(trove.runtime);
    cleanups.push(() => second.stop());
    const source = await ranSource(trove.api);
    expect(feeds.hits("/restart.xml")).toBe(2);
    await expectPolledOnce(trove.api, source);
    // The first poll's fetch ends late: it records nothing, and its create says the service stopped.
    feed.release();
    expect(await creating).toMatchObject({ status: 503, body: { error: "service_unavailable" } });
    await expectPolledOnce(trove.api, (await (await trove.api(`/api/sources/${source.id}`)).json()).source);
    // Sent again, the create answers the source as it is.
    expect(await create()).toMatchObject({ status: 200, body: { existing: true, source: { id: source.id, itemCount: 1 } } });
  }, 120_000);

  // The embedded deployment is one process on its own data directory: nothing of the stack under test is involved.
  // Registered only where it applies.
  const embeddedOnly = testStack() === "embedded" ? test : () => {};
  embeddedOnly("killed during the first poll (SIGKILL): after the restart the poll runs again", async () => {
    const feeds = feedServer();
    cleanups.push(() => feeds.stop());
    const trove = await spawnEmbedded();
    cleanups.push(() => trove.stop());
    const feed = heldOnce(feeds, "/killed.xml");
    cleanups.push(() => feed.release());
    const creating = trove.api("/api/sources", { method: "POST", json: { type: "rss", feedUrl: feed.url, backfillItems: 1 } }).catch(() => null);
    await eventually(() => feeds.hits("/killed.xml") === 1, 30_000);
    await trove.kill("SIGKILL");
    // The connection died with the process: the create has no answer.
    expect(await creating).toBeNull();
    await trove.restart();
    const source = await ranSource(trove.api);
    expect(feeds.hits("/killed.xml")).toBe(2);
    await expectPolledOnce(trove.api, source);
  }, 120_000);
});

describe("an installation whose sources were scheduled before the work queue", () => {
  test("its syncing sources are polled when due, as they were; a paused one and an inbox are not", async () => {
    const feeds = feedServer();
    cleanups.push(() => feeds.stop());
    const trove = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { without: ["sources"] });
    cleanups.push(() => trove.stop());
    // The sources schema as it was: every migration before the queue's.
    const dir = join(import.meta.dir, "..", "migrations");
    const before = (await readdir(dir)).filter((f) => f.endsWith(".ts") && f < "2026-12-03T1200").sort();
    const modules = await Promise.all(before.map(async (f) => [f.replace(/\.ts$/, ""), (await import(join(dir, f))) as Migration] as const));
    await sql`create schema if not exists sources`.execute(trove.db);
    const migrated = await new Migrator({ db: trove.db, migrationTableSchema: "sources", provider: { getMigrations: async () => Object.fromEntries(modules) } }).migrateToLatest();
    expect(migrated.error).toBeUndefined();
    const account = (await trove.db.selectFrom("gateway.accounts").select("id").where("email", "=", "alice@example.test").executeTakeFirstOrThrow()).id;
    const now = Math.floor(Date.now() / 1000);
    const old = (id: string, o: { status: string; type?: string; target: string; next: number | null; lease?: boolean }) =>
      trove.db
        .insertInto("sources.sources")
        .values({
          id,
          account_id: account,
          type: o.type ?? "rss",
          name: id,
          status: o.status,
          target: o.target,
          inbox_address: o.type === "email_inbox" ? o.target : null,
          poll_every_min: 60,
          next_poll_at: o.next,
          config: JSON.stringify(o.type === "email_inbox" ? {} : { feedUrl: o.target, backfillMode: "from_now" }),
          settings: JSON.stringify({ defaultTags: [], smartTagRules: [], expandFullContent: false, autoSummarize: false, rollupEnabled: false }),
          cursors: "{}",
          // A replica that stopped mid-run left its lease behind.
          lease_owner: o.lease ? "sources-gone" : null,
          lease_until: o.lease ? now + 300 : null,
          created_at: now - 86_400,
          updated_at: now - 86_400,
        })
        .execute();
    const feed = (path: string) => feeds.feed(path, rss2(`Feed ${path}`, [{ id: `${path}-1`, title: `Entry of ${path}`, link: `http://site.test${path}/1`, at: now }]));
    await old("due", { status: "syncing", target: feed("/due.xml"), next: now - 60 });
    await old("leased", { status: "syncing", target: feed("/leased.xml"), next: now - 60, lease: true });
    await old("later", { status: "syncing", target: feed("/later.xml"), next: now + 1_800 });
    await old("paused", { status: "paused", target: feed("/paused.xml"), next: null });
    await old("inbox", { status: "syncing", type: "email_inbox", target: "oldinbox@inbox.localhost", next: null });

    await migrateModules([sourcesService], trove.runtime.database);
    const replica = await startSources(trove.runtime, { timer: false });
    cleanups.push(() => replica.stop());
    expect(await replica.polls.runDue()).toBe(2);
    expect(["/due.xml", "/leased.xml", "/later.xml", "/paused.xml"].map((p) => feeds.hits(p))).toEqual([1, 1, 0, 0]);
    const runs = async (id: string) => ((await (await trove.api(`/api/sources/${id}/events`)).json()).events as { type: string }[]).map((e) => e.type);
    expect(await Promise.all(["due", "leased", "later", "paused", "inbox"].map(runs))).toEqual([["run"], ["run"], [], [], []]);
    // The one due in half an hour is polled then, once (the others' next polls are an hour after theirs).
    expect(await replica.polls.runDue(now + 1_800)).toBe(1);
    expect(await replica.polls.runDue(now + 1_800)).toBe(0);
    expect(feeds.hits("/later.xml")).toBe(1);
    const later = (await (await trove.api("/api/sources/later")).json()).source;
    expect(later).toMatchObject({ lastRunAt: now + 1_800, nextPollAt: now + 5_400, lastError: null });
  }, 60_000);
});

describe("a poll that cannot be recorded for reasons of ours", () => {
  test("is tried again, gives up after its tries with an error the owner reads, and the source is polled again later", async () => {
    const feeds = feedServer();
    cleanups.push(() => feeds.stop());
    const trove = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { without: ["sources"] });
    cleanups.push(() => trove.stop());
    await migrateModules([sourcesService], trove.runtime.database);
    // The test runs the polls at times of its choosing.
    const replica = await startSources(trove.runtime, { timer: false });
    cleanups.push(() => replica.stop());
    const url = feeds.feed("/refused.xml", rss2("Refused Feed", [{ id: "f1", title: "An entry", link: "http://site.test/refused/1", at: 1_700_000_000 }]));
    const created = await (await trove.api("/api/sources", { method: "POST", json: { type: "rss", feedUrl: url } })).json();
    const id = created.source.id as string;
    const source = async () => (await (await trove.api(`/api/sources/${id}`)).json()).source;
    const events = async () => (await (await trove.api(`/api/sources/${id}/events`)).json()).events as { type: string; message: string | null }[];
    const due = created.source.nextPollAt as number;

    // Every run fetches the feed, then cannot record itself: the database refuses the run's event.
    await refuseWrites(trove.db, "sources", ["source_events"]);
    // Tried again 10, 20, 40 and 80 s after each failure (less a random part of up to a fifth).
    for (const at of [due, due + 10, due + 30, due + 70, due + 150]) expect(await replica.polls.runDue(at)).toBe(1);
    expect(feeds.hits("/refused.xml")).toBe(1 + 5);
    expect(await replica.polls.runDue(due + 150)).toBe(0);
    // Nothing of those runs was recorded: not even the failure of the last (its record was refused too), so the job
    // is left to its lease, as a crashed replica's would be.
    expect((await events()).map((e) => e.type)).toEqual(["run", "created"]);
    await acceptWrites(trove.db, "sources");

    // Once the lease has run out the job is not run a sixth time: it gives up, and says so.
    const leaseSec = Math.ceil(trove.runtime.config.jobLeaseMs / 1000);
    const gaveUp = due + 150 + leaseSec + 1;
    expect(await replica.polls.runDue(gaveUp)).toBe(1);
    expect(feeds.hits("/refused.xml")).toBe(6);
    expect(await source()).toMatchObject({ lastError: runNotFinished, consecutiveFailures: 1, lastRunAt: gaveUp, nextPollAt: gaveUp + 2 * 3600 });
    expect((await events())[0]).toMatchObject({ type: "error", message: runNotFinished });

    // Its next poll is there: it runs, and all is well again.
    expect(await replica.polls.runDue(gaveUp + 2 * 3600)).toBe(1);
    expect(feeds.hits("/refused.xml")).toBe(7);
    expect(await source()).toMatchObject({ lastError: null, consecutiveFailures: 0, lastRunAt: gaveUp + 2 * 3600 });
  }, 60_000);
});
