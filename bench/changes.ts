// `bun run bench/changes.ts`: the change stream (GET /api/items/changes) on a realistic library, in both deployments.
//   catch-up   one client walks a log of 100,000 events from the start with limit=1000, as a consumer that was
//              offline would; events per second through the API (target 20,000), with the current items attached
//   page p95   at 1,000,000 events: pages of 200 at random cursors, unfiltered and with a tag filter
// The library: real corpus pages saved through the API (bench/library.ts), grown by copying rows in SQL to
// BENCH_ITEMS (10,000) items; the log: the events those saves wrote, then item.updated/tagged/untagged/collection
// events over those items written in SQL with positions (as the relay gives them) up to 100k, then 1M.
// Writes the `## Change stream` section of docs/benchmarks.md. Needs PostgreSQL, NATS and the shared corpus.
import { join } from "node:path";
import { openDatabase } from "@trove/db";
import { aliceKey, type Backing, backingServices, dropScratchDatabase } from "@trove/testing";
import { encodeCursor } from "../services/items/changes.service.ts";
import { copyToSize, corpusPages, loadThroughApi } from "./library.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";
import { type Db, query } from "./sql.ts";
import { startDistributed, startEmbedded } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const saves = Number(process.env.BENCH_SAVES ?? 100);
const libraryItems = Number(process.env.BENCH_ITEMS ?? 10_000);
const catchUpEvents = 100_000;
const bigLog = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const samples = 300;
const machine = await machineLine();

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const b: Backing = backing;
const troveEnv = { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "warn", TROVE_VALIDATE_RESPONSES: "0", TROVE_INGEST_WAIT_MS: "60000" };

/** Grows the account's log to `total` events with positions and published marks, in statements of 100k rows. */
async function growLog(db: Db, total: number): Promise<{ account: string; added: number }> {
  const [{ account_id: account, n } = { account_id: "", n: 0 }] = await query<{ account_id: string; n: number }>(
    db,
    "select account_id, count(*)::int as n from eventlog.events where stream = 'items' and subject like 'items.event.%' group by account_id",
  );
  if (!account) throw new Error("no events to grow from");
  // Positions are the database's, not the account's: numbering goes on after the last one given.
  const head = (await query<{ head: number }>(db, "select coalesce(max(position), 0)::int8 as head from eventlog.events"))[0]!.head;
  const items = (await query<{ n: number }>(db, "select count(*)::int as n from items.items where account_id = $1", [account]))[0]!.n;
  let added = 0;
  for (let from = 0; from < total - n; from += 100_000) {
    const count = Math.min(100_000, total - n - from);
    await query(
      db,
      `with numbered as (
         select id, row_number() over (order by id) as rn, jsonb_build_object('status', status,
           'tagSlugs', (select coalesce(jsonb_agg(e->'slug'), '[]'::jsonb) from jsonb_array_elements(tags) e),
           'collectionIds', (select coalesce(jsonb_agg(e->'id'), '[]'::jsonb) from jsonb_array_elements(collections) e)) as scope
         from items.items where account_id = $1),
       made as (
         select gen_random_uuid()::text as id, (array['item.updated','item.tagged','item.untagged','item.collection_added'])[1 + g % 4] as type,
           i.id as item_id, $2::int8 + g as at, i.scope, $3::int8 + g as position
         from generate_series(1, $4::int) g join numbered i on i.rn = 1 + (g + $5::int) % $6::int)
       insert into eventlog.events (id, stream, subject, account_id, key, at, data, position, published_at)
       select id, 'items', 'items.event.' || type, $1, item_id, at,
         jsonb_build_object('id', id, 'accountId', $1::text, 'type', type, 'itemId', item_id, 'changedAt', at,
           'beforeScope', scope, 'afterScope', scope, 'payload', '{"changedFields":["notes"]}'::jsonb),
         position, $2::int8
       from made`,
      [account, Date.now() - 86_400_000, Number(head) + from, count, from, items],
    );
    added += count;
  }
  await query(db, "analyze eventlog.events");
  return { account, added };
}

async function get(url: string): Promise<any> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${aliceKey}` } });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

/** Walks the whole log from the start; events per second, pages, and MiB read. */
async function catchUp(base: string) {
  const started = performance.now();
  let cursor: string | undefined;
  let events = 0;
  let pages = 0;
  let bytes = 0;
  for (;;) {
    const res = await fetch(`${base}/api/items/changes?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, { headers: { authorization: `Bearer ${aliceKey}` } });
    const text = await res.text();
    bytes += text.length;
    const page = JSON.parse(text);
    events += page.events.length;
    pages++;
    cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  const s = (performance.now() - started) / 1000;
  return { events, pages, seconds: s, perSecond: events / s, mib: bytes / 2 ** 20 };
}

/** Page times at random cursors over the log (ms), one request at a time. */
async function pageTimes(base: string, account: string, head: number, extra: string) {
  const times: number[] = [];
  let returned = 0;
  for (let i = 0; i < samples; i++) {
    const cursor = encodeCursor(account, Math.floor(Math.random() * head));
    const t0 = performance.now();
    const page = await get(`${base}/api/items/changes?limit=200&cursor=${cursor}${extra}`);
    times.push(performance.now() - t0);
    returned += page.events.length;
  }
  times.sort((a, c) => a - c);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), perPage: returned / samples };
}

type Measured = {
  library: { items: number; saved: number };
  catchUp: Awaited<ReturnType<typeof catchUp>>;
  plain: Awaited<ReturnType<typeof pageTimes>>;
  tagged: Awaited<ReturnType<typeof pageTimes>>;
  growSeconds: number;
};
const results: Partial<Record<"embedded" | "distributed", Measured>> = {};

/** Saves, grows, measures; `restart` is how the deployment picks up rows written under it (PGlite: reopen). */
async function run(name: "embedded" | "distributed", base: string, openDb: () => Promise<{ db: Db; close(): Promise<void> }>, around: (fn: () => Promise<void>) => Promise<void>) {
  const loaded = await loadThroughApi(base, corpusPages(saves));
  console.log(`${name}: ${loaded.items.length} items saved through the API in ${loaded.seconds.toFixed(1)} s`);
  let account = "";
  const grow = async (total: number) => {
    const t0 = performance.now();
    await around(async () => {
      const database = await openDb();
      try {
        if (total === catchUpEvents) await copyToSize(database.db, libraryItems);
        account = (await growLog(database.db, total)).account;
      } finally {
        await database.close();
      }
    });
    return (performance.now() - t0) / 1000;
  };
  await grow(catchUpEvents);
  const walked = await catchUp(base);
  console.log(`${name}: catch-up ${walked.events} events in ${walked.seconds.toFixed(1)} s = ${walked.perSecond.toFixed(0)}/s`);
  const growSeconds = await grow(bigLog);
  const plain = await pageTimes(base, account, bigLog, "");
  const tagged = await pageTimes(base, account, bigLog, "&tags=reading");
  console.log(`${name}: at ${bigLog} events, page p95 ${plain.p95.toFixed(1)} ms, tag-filtered p95 ${tagged.p95.toFixed(1)} ms`);
  results[name] = { library: { items: libraryItems, saved: loaded.items.length }, catchUp: walked, plain, tagged, growSeconds };
}

try {
  // Embedded: bun run start on PGlite; the bench writes the log while it is stopped (PGlite is one process's).
  {
    const embedded = await startEmbedded(b, troveEnv, "changes");
    try {
      await run("embedded", embedded.url, () => openDatabase({ dataDir: embedded.dataDir }), (fn) => embedded.paused(fn));
    } finally {
      await embedded.stop();
    }
  }
  // Distributed: every service its own process over PostgreSQL + NATS; the log grows under the running services.
  {
    const topo = await startDistributed({ ...b, prefix: `${b.prefix}c` }, troveEnv);
    try {
      await run("distributed", topo.url, () => openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 }), (fn) => fn());
    } finally {
      await topo.stop();
    }
  }
} finally {
  await b.stop();
  await dropScratchDatabase(b.databaseUrl).catch(() => {});
}

const row = (name: "embedded" | "distributed") => {
  const r = results[name]!;
  return `| ${name} | ${r.catchUp.perSecond.toFixed(0)} (${r.catchUp.events} events, ${r.catchUp.pages} pages, ${r.catchUp.seconds.toFixed(1)} s, ${r.catchUp.mib.toFixed(0)} MiB) | ${r.plain.p50.toFixed(1)} / ${r.plain.p95.toFixed(1)} ms | ${r.tagged.p50.toFixed(1)} / ${r.tagged.p95.toFixed(1)} ms (${r.tagged.perPage.toFixed(0)} events a page) |`;
};
const section = `## Change stream (${today()})

\`bun run bench/changes.ts\`. A library of ${libraryItems} items (${results.embedded?.library.saved ?? "?"} real corpus pages saved through the API, copied in SQL),
and a log grown in SQL over those items (their real scopes; types updated / tagged / untagged / collection_added) with positions as the
relay gives them. Catch-up: one client walks ${catchUpEvents.toLocaleString("en")} events from the start, \`limit=1000\`, each event with its
current item attached (target 20,000 events/s). Pages: ${samples} requests of \`limit=200\` at random cursors over ${bigLog.toLocaleString("en")} events, one at a time,
unfiltered and with \`tags=reading\` (a tag on about a fifth of the items).

| deployment | catch-up events/s | page p50 / p95 at ${bigLog / 1e6}M | tag-filtered page p50 / p95 |
| --- | --- | --- | --- |
${row("embedded")}
${row("distributed")}

Reading: a catch-up page of 1,000 events is about 1.1 MiB of JSON, most of it the attached items. Distributed, that
reply is larger than a NATS message; it crosses the bus zstd-compressed (about a tenth of the size, a few ms) instead
of through the object store. Embedded, the page is bounded by PGlite handing rows to JavaScript: in a profile on
2026-11-23 (2,000-item library) reading the 1,000 events took 15-20 ms and their 1,000 items 30-40 ms, of which the
query itself ran 3.6 ms inside PostgreSQL (EXPLAIN ANALYZE); aggregating the rows to one JSON text in SQL saved
only a quarter. A catch-up consumer on the embedded deployment reads about two thirds of the target rate.

${machine}
`;
await writeSection("Change stream", section);
console.log(section);
