// End to end: two sources-service processes (and every other service, each its own process) over real NATS and
// PostgreSQL, their poll workers on (TROVE_SOURCES_TICK_MS shortens their sleep), polling feeds served on 127.0.0.1.
// What a user sees: the feed's requests, the sources' events (a run's `detail.replica` names the replica that ran it)
// and the answers of the API, GET /api/health's work queue counts included.
//
// Both replicas take part, shown without timing: a replica runs at most 4 polls at once, so when 20 sources are
// made due together and the feed holds its answers until 5 requests wait at once, the fifth is the other replica's.
// "No third fetch" without sleeping: a feed is fetched only by a poll that is running, so once every source has its
// run and the health shows no poll running or due (the next ones are an hour away), the counts read are final.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { aliceKey, backingServices, eventually, launchDistributed, waitForHealth, type Backing, type Topology } from "@trove/testing";
import { feedServer, rss2 } from "../../services/sources/test/feeds.ts";

const backing = await backingServices();

const call = async (url: string, path: string, init: { json?: unknown } = {}) => {
  const headers = new Headers({ authorization: `Bearer ${aliceKey}` });
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url + path, { method: init.json === undefined ? "GET" : "POST", headers, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
};

/** Holds feed answers until `n` requests wait at once, then answers them and every later one at once. */
function gate(n: number) {
  const waiting: (() => void)[] = [];
  let open = false;
  return {
    pass: () =>
      open
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length >= n) {
              open = true;
              for (const release of waiting) release();
            }
          }),
  };
}

if ("skip" in backing) {
  console.log(`SKIPPED sources end-to-end suite: ${backing.skip}`);
  describe.skip(`two sources processes (skipped: ${backing.skip})`, () => test("every sources end-to-end test", () => {}));
} else {
  const b: Backing = backing;
  let topo: Topology;
  const feeds = feedServer();
  let held: ReturnType<typeof gate> | null = null;
  const feed = (path: string) => feeds.route(path, async () => {
    await held?.pass();
    return new Response(rss2(`Feed ${path}`, [{ id: `${path}-1`, title: `Entry of ${path}`, link: `http://site.test${path}/1`, at: 1_700_000_000 }]), {
      headers: { "content-type": "application/rss+xml" },
    });
  });
  beforeAll(async () => {
    // A stop's grace well past any first poll, so the SIGTERM test's poll finishes within it however busy the machine.
    topo = await launchDistributed(b, { TROVE_SOURCES_TICK_MS: "200", TROVE_RATE_LIMIT: "100000", TROVE_STOP_GRACE_MS: "60000" }, { replicas: { sources: 2 } });
  });
  afterAll(async () => {
    await topo?.stop();
    await b.stop();
    feeds.stop();
  });

  const create = async (path: string) => {
    const r = await call(topo.url, "/api/sources", { json: { type: "rss", feedUrl: feed(path), name: path } });
    expect({ status: r.status, initialRun: r.body.initialRun }).toEqual({ status: 200, initialRun: { status: "ok", itemsAdded: 0, entriesSeen: 1 } });
    return r.body.source.id as string;
  };
  const events = async (id: string) => (await call(topo.url, `/api/sources/${id}/events?limit=200`)).body.events as { type: string; detail: Record<string, unknown> }[];
  /** The events since the source's latest resume, newest first. */
  const sinceResume = async (id: string) => {
    const all = await events(id);
    const at = all.findIndex((e) => e.type === "resumed");
    return at < 0 ? [] : all.slice(0, at);
  };
  const pauseAll = (ids: string[]) => Promise.all(ids.map((id) => call(topo.url, `/api/sources/${id}/pause`, { json: {} })));
  const resumeAll = (ids: string[]) => Promise.all(ids.map((id) => call(topo.url, `/api/sources/${id}/resume`, { json: {} })));

  describe(`two sources processes over NATS and PostgreSQL (${b.how})`, () => {
    test("polling with two sources-service processes over NATS polls each source exactly once per interval", async () => {
      const paths = Array.from({ length: 20 }, (_, i) => `/round/${i}.xml`);
      // Both replicas serve (the second starts after the first is healthy): creates until each has answered one,
      // its first poll's run event naming it.
      const warmedBy = new Set<unknown>();
      let warm = 0;
      await eventually(async () => {
        const id = await create(`/warm/${warm++}.xml`);
        warmedBy.add((await events(id)).find((e) => e.type === "run")?.detail.replica);
        return warmedBy.size === 2;
      }, 60_000);
      // Each create runs the source's first poll before answering: one request each.
      const ids = await Promise.all(paths.map(create));
      expect(paths.map((p) => feeds.hits(p))).toEqual(Array(20).fill(1));
      await pauseAll(ids);

      // The round: all 20 due at once (their interval is an hour), the first answers held until 5 wait together.
      held = gate(5);
      await resumeAll(ids);
      await eventually(() => paths.every((p) => feeds.hits(p) >= 2), 60_000);
      held = null;
      await eventually(async () => (await Promise.all(ids.map(sinceResume))).every((e) => e.some((x) => x.type === "run")), 30_000);
      // Nothing polls now, and nothing is due: every fetch there was has been counted.
      await eventually(async () => {
        const queue = (await call(topo.url, "/api/health")).body.services.sources.queue;
        return queue?.running === 0 && queue?.due === 0;
      }, 30_000);

      expect(paths.map((p) => feeds.hits(p))).toEqual(Array(20).fill(2));
      const rounds = await Promise.all(ids.map(sinceResume));
      expect(rounds.map((e) => e.map((x) => x.type))).toEqual(Array(20).fill(["run"]));
      const replicas = new Set(rounds.flat().map((e) => e.detail.replica));
      expect(replicas.size).toBe(2);
      for (const r of replicas) expect(String(r)).toMatch(/^sources-[0-9a-f-]{36}$/);
      expect([...replicas].sort()).toEqual([...warmedBy].sort());
    }, 180_000);

    // A stopping replica gives the polls it runs TROVE_STOP_GRACE_MS to finish before it gives them back.
    test("SIGTERM during a create's first poll: the replica finishes the poll, answers the create and exits cleanly", async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const url = feeds.route("/held.xml", async () => {
        await released;
        return new Response(rss2("Held Feed", [{ id: "h1", title: "Held entry", link: "http://site.test/held/1", at: 1_700_000_000 }]), {
          headers: { "content-type": "application/rss+xml" },
        });
      });
      const created = call(topo.url, "/api/sources", { json: { type: "rss", feedUrl: url, backfillItems: 1 } });
      await eventually(() => feeds.hits("/held.xml") === 1, 30_000);
      // Whichever replica took the create, both stop; a stopping replica first stops taking requests.
      const replicas = [topo.procs.get("sources")!, topo.procs.get("sources#2")!];
      for (const p of replicas) p.kill("SIGTERM");
      await eventually(async () => (await call(topo.url, "/api/sources")).status === 503, 30_000);
      release();
      const answer = await created;
      expect({ status: answer.status, initialRun: answer.body.initialRun }).toEqual({ status: 200, initialRun: { status: "ok", itemsAdded: 1, entriesSeen: 1 } });
      expect(await Promise.all(replicas.map((p) => p.exited))).toEqual([0, 0]);
      topo.restart("sources");
      await waitForHealth(topo.url);
      const source = (await call(topo.url, `/api/sources/${answer.body.source.id}`)).body.source;
      expect(source).toMatchObject({ itemCount: 1, lastError: null });
      expect(source.lastSuccessAt).not.toBeNull();
      expect((await events(source.id)).map((e) => e.type)).toEqual(["run", "created"]);
    }, 120_000);
  });
}
