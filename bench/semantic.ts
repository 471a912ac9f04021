// `bun run bench:semantic`: semantic and hybrid search at scale, in the embedded deployment (`bun run start` on
// PGlite, pgvector HNSW) and the distributed one (every service its own process over PostgreSQL + NATS: pgvector
// when the server has it, else the usearch fallback).
//   library    BENCH_SAVES (100) real corpus pages saved through the API with TROVE_SEMANTIC=on: the embed-items
//              consumer embeds them on the worker pool (throughput: chunks per second, extraction sharing the pool)
//   growth     rows copied in SQL (bench/library.ts copyToSize); each copy gets its original's lexical document and
//              its original's chunk vectors (at most BENCH_COPY_CHUNKS, 8), both by insert ... select; with pgvector
//              the vectors get small Gaussian noise, normalised (HNSW over duplicates would be degenerate):
//              embedding 100k pages at ~10 chunks/s would take a day
//   queries    p50/p95 of GET /api/items/search (limit 20) in semantic, hybrid and lexical mode for queries that are not the
//              library's words, one with a tag filter, and GET /api/search; one request at a time
//   query      the query embedding alone: p50/p95 on a warm worker, in this process
// Sizes: embedded BENCH_EMBEDDED_ITEMS (10,000); distributed BENCH_ITEMS (10,000 then 100,000).
// Writes the `## Semantic search` section of docs/benchmarks.md. Needs PostgreSQL, NATS and the shared corpus.
import { readFileSync } from "node:fs";
import { poolEmbedder } from "../libs/embed/index.ts";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { aliceKey, type Backing, backingServices, dropScratchDatabase } from "@trove/testing";
import { WorkerPool } from "../libs/workers/index.ts";
import { columnsOf, copyToSize, corpusPages, loadThroughApi } from "./library.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";
import { type Db, query } from "./sql.ts";
import { startDistributed, startEmbedded, treeOf } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const saves = Number(process.env.BENCH_SAVES ?? 100);
const embeddedSizes = (process.env.BENCH_EMBEDDED_ITEMS ?? "10000").split(",").filter(Boolean).map(Number);
const distributedSizes = (process.env.BENCH_ITEMS ?? "10000,100000").split(",").filter(Boolean).map(Number);
const copyChunks = Number(process.env.BENCH_COPY_CHUNKS ?? 8);
const samples = Number(process.env.BENCH_SAMPLES ?? 60);
const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 10_000);
const only = process.env.BENCH_ONLY; // "embedded" | "distributed"
const machine = await machineLine();

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const b: Backing = backing;
const troveEnv = { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "warn", TROVE_VALIDATE_RESPONSES: "0", TROVE_INGEST_WAIT_MS: "60000", TROVE_SEMANTIC: "on" };

/** Queries by meaning: none is a phrase of the corpus; the lexical half of hybrid finds what it finds. */
const queries = ["car", "how governments raise taxes", "climate change and the weather", "learning to program computers", "a recipe for dinner"];

async function call(base: string, path: string): Promise<any> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${aliceKey}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function latencies(base: string, path: string) {
  const times: number[] = [];
  let last: any;
  for (let i = 0; i < 2; i++) last = await call(base, path);
  const started = performance.now();
  while (times.length < samples && (times.length < 5 || performance.now() - started < budgetMs)) {
    const t0 = performance.now();
    last = await call(base, path);
    times.push(performance.now() - t0);
  }
  times.sort((a, c) => a - c);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), n: times.length, mode: last.mode as string, count: Number(last.count ?? last.results?.length) };
}

// ---- the library ----------------------------------------------------------------------------------------------

/** Waits until every item has vectors (the consumer has embedded them); answers the chunks and the seconds. */
async function waitEmbedded(db: Db, started: number): Promise<{ chunks: number; seconds: number }> {
  for (;;) {
    const [r] = await query<{ missing: number; chunks: number }>(
      db,
      `select (select count(*) from items.items i where not exists (select 1 from items.search_vectors v where v.id = i.id))::int as missing,
              (select count(*) from items.search_vectors)::int as chunks`,
    );
    if (r!.missing === 0) return { chunks: r!.chunks, seconds: (performance.now() - started) / 1000 };
    await Bun.sleep(1_000);
  }
}

/** The copies (URL with `copy=`) that have no row in `table` yet, each with its original's id: a temp table. */
async function pendingCopies(db: Db, table: string): Promise<void> {
  await query(db, "drop table if exists bench_pending");
  await query(db, `create temp table bench_pending as
    select i.id, s.id as src from items.items i join items.items s on s.url = regexp_replace(i.url, '[?&]copy=.*$', '') and s.account_id = i.account_id
    where i.url ~ '[?&]copy=' and not exists (select 1 from items.${table} t where t.id = i.id)`);
}

/**
 * The lexical documents of the copies: their original's, as a reindex would write them, in one insert ... select
 * (column-agnostic through the table's column list, so it survives the lexical rework; jsonb_populate_record per
 * row was too slow at 90k documents).
 */
async function copyDocs(db: Db): Promise<number> {
  await pendingCopies(db, "search_docs");
  const cols = await columnsOf(db, "search_docs");
  const select = cols.map((c) => (c === "id" ? "p.id" : `d.${c}`)).join(", ");
  const rows = await query<{ n: number }>(
    db,
    `with ins as (insert into items.search_docs (${cols.join(", ")}) select ${select}
       from bench_pending p join items.search_docs d on d.id = p.src returning 1)
     select count(*)::int as n from ins`,
  );
  await query(db, "analyze items.search_docs");
  return rows[0]!.n;
}

/** copyToSize numbers copies from 1 each time: earlier copies take a `gen` mark so a second growth cannot collide. */
async function markCopies(db: Db, generation: number): Promise<void> {
  const url = `url || '&gen=${generation}'`;
  await query(db, `update items.items set url = ${url}, url_hash = left(encode(sha256(convert_to(${url}, 'UTF8')), 'hex'), 32)
    where url ~ '[?&]copy=' and url !~ '[?&]gen='`);
}

/** Gaussian noise (Box-Muller), sigma per component. */
const gauss = (sigma: number) => sigma * Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());

/**
 * pgvector's copies: their original's first chunks with noise, normalised, written from here (an HNSW graph over
 * exact duplicates would be a degenerate one).
 */
async function copyNoisyVectors(db: Db): Promise<number> {
  const originals = await query<{ id: string; chunk: number; account_id: string; kind: string; model: string; dims: number; hash: string; text: string; vec: Uint8Array; url: string }>(
    db,
    `select v.id, v.chunk, v.account_id, v.kind, v.model, v.dims, v.hash, v.text, v.vec, i.url from items.search_vectors v join items.items i on i.id = v.id
     where i.url !~ '[?&]copy=' and v.chunk < $1 order by v.id, v.chunk`,
    [copyChunks],
  );
  const byUrl = new Map<string, typeof originals>();
  for (const o of originals) byUrl.set(o.url, [...(byUrl.get(o.url) ?? []), o]);
  const copies = await query<{ id: string; src: string }>(
    db,
    `select i.id, regexp_replace(i.url, '[?&]copy=.*$', '') as src from items.items i
     where i.url ~ '[?&]copy=' and not exists (select 1 from items.search_vectors v where v.id = i.id)`,
  );
  let rows = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch.map((_, r) => `(${Array.from({ length: 10 }, (_, c) => `$${r * 10 + c + 1}${c === 9 ? "::vector" : ""}`).join(", ")})`).join(", ");
    await query(db, `insert into items.search_vectors (id, chunk, account_id, kind, model, dims, hash, text, vec, embedding) values ${values}`, batch.flat());
    rows += batch.length;
    batch = [];
  };
  for (const c of copies) {
    for (const o of byUrl.get(c.src) ?? []) {
      const v = new Float32Array(new Uint8Array(o.vec).buffer);
      const out = new Float32Array(v.length);
      let norm = 0;
      for (let i = 0; i < v.length; i++) norm += (out[i] = v[i]! + gauss(0.005)) ** 2;
      norm = Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) out[i]! /= norm;
      batch.push([c.id, o.chunk, o.account_id, o.kind, o.model, o.dims, o.hash, o.text, new Uint8Array(out.buffer), `[${Array.prototype.join.call(out, ",")}]`]);
      if (batch.length >= 400) await flush();
    }
  }
  await flush();
  return rows;
}

/**
 * The fallback's copies: their original's first chunks as they are, in one insert ... select. Its exact scan costs
 * the same whatever the values, and 500k+ rows through this process took minutes.
 */
async function copyExactVectors(db: Db): Promise<number> {
  await pendingCopies(db, "search_vectors");
  const cols = await columnsOf(db, "search_vectors");
  const select = cols.map((c) => (c === "id" ? "p.id" : `v.${c}`)).join(", ");
  const [r] = await query<{ n: number }>(
    db,
    `with ins as (insert into items.search_vectors (${cols.join(", ")}) select ${select}
       from bench_pending p join items.search_vectors v on v.id = p.src and v.chunk < $1 returning 1)
     select count(*)::int as n from ins`,
    [copyChunks],
  );
  return r!.n;
}

/** The copies' vectors (noisy for pgvector, exact for the fallback); pgvector's HNSW index built once after them. */
async function copyVectors(db: Db): Promise<{ rows: number; seconds: number; indexSeconds: number }> {
  const started = performance.now();
  const pgvector = (await query(db, `select 1 from information_schema.columns where table_schema = 'items' and table_name = 'search_vectors' and column_name = 'embedding'`)).length > 0;
  if (pgvector) await query(db, "drop index if exists items.search_vectors_hnsw");
  const rows = pgvector ? await copyNoisyVectors(db) : await copyExactVectors(db);
  const seconds = (performance.now() - started) / 1000;
  const t0 = performance.now();
  if (pgvector) await query(db, "create index if not exists search_vectors_hnsw on items.search_vectors using hnsw (embedding vector_ip_ops)");
  await query(db, "analyze items.search_vectors");
  return { rows, seconds, indexSeconds: (performance.now() - t0) / 1000 };
}

async function tableMiB(db: Db): Promise<number> {
  const [r] = await query<{ n: number }>(db, "select pg_total_relation_size('items.search_vectors')::int8 as n");
  return Number(r!.n) / 2 ** 20;
}

/** Resident memory of a process and its children, MiB. */
function rssMiB(pid: number): number {
  let kb = 0;
  for (const p of treeOf(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kb / 1024;
}

// ---- measuring ------------------------------------------------------------------------------------------------

type Row = { label: string; p50: number; p95: number; n: number; mode: string; count: number };
type AtSize = { items: number; vectors: number; copied: { rows: number; seconds: number; indexSeconds: number }; tableMiB: number; rssMiB: number; backend: string; rows: Row[] };
type Deployment = { saved: number; embed: { chunks: number; seconds: number } | null; sizes: AtSize[] };
const results: Partial<Record<"embedded" | "distributed", Deployment>> = {};

async function measure(base: string): Promise<Row[]> {
  const enc = encodeURIComponent;
  const paths = [
    ...queries.flatMap((q) => [
      { label: `semantic: ${q}`, path: `/api/items/search?q=${enc(q)}&limit=20&mode=semantic` },
      { label: `hybrid: ${q}`, path: `/api/items/search?q=${enc(q)}&limit=20&mode=hybrid` },
      // Hybrid's lexical half alone, on the same library and run, so the two can be read side by side.
      { label: `lexical: ${q}`, path: `/api/items/search?q=${enc(q)}&limit=20&mode=lexical` },
    ]),
    { label: "semantic, tags=reading: car", path: `/api/items/search?q=car&tags=reading&limit=20&mode=semantic` },
    { label: "items + notes, hybrid: car", path: `/api/search?q=car&mode=hybrid` },
  ];
  const rows: Row[] = [];
  for (const p of paths) {
    const r = await latencies(base, p.path);
    console.log(`  ${p.label.padEnd(48)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms  (${r.mode}, count ${r.count}, n=${r.n})`);
    rows.push({ label: p.label, ...r });
  }
  return rows;
}

async function run(
  name: "embedded" | "distributed",
  start: () => Promise<{ url: string; pid: () => number }>,
  sizes: number[],
  openDb: () => Promise<{ db: Db; close(): Promise<void> }>,
  /** Runs SQL work where the deployment allows it, and restarts the services after (their caches reload). */
  around: (fn: () => Promise<void>) => Promise<void>,
  /** Waits for the consumer to embed the saved library; the throughput where it can be watched. */
  waitForVectors: (started: number) => Promise<{ chunks: number; seconds: number } | null>,
) {
  const started = performance.now();
  const loaded = await loadThroughApi((await start()).url, corpusPages(saves));
  console.log(`${name}: ${loaded.items.length} items saved in ${loaded.seconds.toFixed(1)} s; embedding...`);
  const embed = await waitForVectors(started);
  if (embed) console.log(`${name}: ${embed.chunks} chunks embedded in ${embed.seconds.toFixed(1)} s = ${(embed.chunks / embed.seconds).toFixed(1)} chunks/s`);
  const out: Deployment = { saved: loaded.items.length, embed, sizes: [] };
  results[name] = out;
  for (const size of sizes) {
    const at: AtSize = { items: size, vectors: 0, copied: { rows: 0, seconds: 0, indexSeconds: 0 }, tableMiB: 0, rssMiB: 0, backend: "", rows: [] };
    await around(async () => {
      const database = await openDb();
      try {
        await markCopies(database.db, size);
        const grown = await copyToSize(database.db, size);
        const docs = await copyDocs(database.db);
        at.copied = await copyVectors(database.db);
        const [v] = await query<{ n: number }>(database.db, "select count(*)::int as n from items.search_vectors");
        at.vectors = v!.n;
        at.tableMiB = await tableMiB(database.db);
        console.log(`${name}: grown to ${size} items (+${grown.added}), ${docs} documents and ${at.copied.rows} vectors copied in ${at.copied.seconds.toFixed(0)} s (index ${at.copied.indexSeconds.toFixed(0)} s)`);
      } finally {
        await database.close();
      }
    });
    // A restarted topology listens elsewhere; the fallback loads its cache in the background (503 until then).
    const base = (await start()).url;
    for (let t = 0; ; t++) {
      const res = await fetch(`${base}/api/items/search?q=car&mode=semantic&limit=1`, { headers: { authorization: `Bearer ${aliceKey}` } });
      if (res.ok) break;
      if (t > 1_800) throw new Error("semantic search did not come up within 30 minutes");
      await Bun.sleep(1_000);
    }
    at.backend = (await call(base, "/api/health")).vectors.backend;
    console.log(`${name} at ${size} items (${at.vectors} vectors, ${at.backend}):`);
    at.rows = await measure(base);
    at.rssMiB = rssMiB((await start()).pid());
    out.sizes.push(at);
  }
}

/** The query's own embedding: one short text on a warm worker, in this process. */
async function queryEmbedding() {
  const pool = new WorkerPool({ script: new URL("../libs/host/tasks.ts", import.meta.url), size: 1 });
  try {
    const embedder = poolEmbedder(pool, { deadlineMs: 60_000 });
    await embedder.embed(["warm up"]);
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      for (const q of queries) {
        const t0 = performance.now();
        await embedder.embed([q]);
        times.push(performance.now() - t0);
      }
    }
    times.sort((a, c) => a - c);
    return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), n: times.length };
  } finally {
    await pool.close();
  }
}

let queryEmbed = { p50: 0, p95: 0, n: 0 };
try {
  queryEmbed = await queryEmbedding();
  console.log(`query embedding: p50 ${queryEmbed.p50.toFixed(1)} ms, p95 ${queryEmbed.p95.toFixed(1)} ms`);
  if (only !== "distributed") {
    const embedded = await startEmbedded(b, troveEnv, "semantic");
    try {
      await run(
        "embedded",
        async () => ({ url: embedded.url, pid: embedded.pid }),
        embeddedSizes,
        () => openDatabase({ dataDir: embedded.dataDir }),
        (fn) => embedded.paused(fn),
        // PGlite is the running process's: it is stopped to count (the backfill goes on at the restart), so the
        // throughput is not watched here.
        async () => {
          for (let done = false; !done; ) {
            await Bun.sleep(60_000);
            await embedded.paused(async () => {
              const database = await openDatabase({ dataDir: embedded.dataDir });
              try {
                const [r] = await query<{ missing: number }>(database.db, "select count(*)::int as missing from items.items i where not exists (select 1 from items.search_vectors v where v.id = i.id)");
                done = r!.missing === 0;
              } finally {
                await database.close();
              }
            });
          }
          return null;
        },
      );
    } finally {
      await embedded.stop();
    }
  }
  if (only !== "embedded") {
    let topo = await startDistributed({ ...b, prefix: `${b.prefix}m` }, troveEnv);
    const openDb = () => openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 });
    try {
      await run(
        "distributed",
        async () => ({ url: topo.url, pid: () => topo.procs.get("items")!.pid }),
        distributedSizes,
        openDb,
        async (fn) => {
          // The services stop while rows are copied, so the fallback's cache loads them at the restart.
          await topo.stop();
          await fn();
          topo = await startDistributed({ ...b, prefix: `${b.prefix}m` }, troveEnv);
        },
        async (started) => {
          const database = await openDb();
          try {
            return await waitEmbedded(database.db, started);
          } finally {
            await database.close();
          }
        },
      );
    } finally {
      await topo.stop();
    }
  }
} finally {
  await b.stop();
  await dropNatsNamespace(b.natsUrl, `${b.prefix}m`).catch(() => {});
  await dropScratchDatabase(b.databaseUrl).catch(() => {});
}

// ---- report ---------------------------------------------------------------------------------------------------

const columns = (["embedded", "distributed"] as const).flatMap((d) => (results[d]?.sizes ?? []).map((s) => ({ d, s })));
const labels = columns[0]?.s.rows.map((r) => r.label) ?? [];
const table = [
  `| request | ${columns.map((c) => `${c.d} ${c.s.items / 1000}k (${c.s.backend}) p50 / p95`).join(" | ")} |`,
  `| --- | ${columns.map(() => "---").join(" | ")} |`,
  ...labels.map((label) => `| ${label} | ${columns.map((c) => {
    const r = c.s.rows.find((x) => x.label === label)!;
    return `${r.p50.toFixed(0)} / ${r.p95.toFixed(0)} ms (${r.mode}; n=${r.n})`;
  }).join(" | ")} |`),
].join("\n");
const sizeLines = columns.map((c) =>
  `- ${c.d}, ${c.s.items.toLocaleString("en")} items: ${c.s.vectors.toLocaleString("en")} chunk vectors (${c.s.copied.rows.toLocaleString("en")} copied in ${c.s.copied.seconds.toFixed(0)} s${c.s.copied.indexSeconds >= 1 ? `, HNSW index built in ${c.s.copied.indexSeconds.toFixed(0)} s` : ""}); items.search_vectors ${c.s.tableMiB.toFixed(0)} MiB with its indexes; items process RSS ${c.s.rssMiB.toFixed(0)} MiB after the queries` +
  (c.s.backend === "usearch-exact" ? ` (the fallback's int8 cache: ${((c.s.vectors * 512) / 2 ** 20).toFixed(0)} MiB of it)` : ""),
);
const embedLines = (["embedded", "distributed"] as const).flatMap((d) => {
  const r = results[d];
  return r?.embed ? [`- ${d}: ${r.saved} pages saved, ${r.embed.chunks} chunks embedded by the consumer in ${r.embed.seconds.toFixed(0)} s from the first save = **${(r.embed.chunks / r.embed.seconds).toFixed(1)} chunks/s** (extraction sharing the 2-worker pool at the start)`] : r ? [`- ${d}: ${r.saved} pages saved (the data directory is the process's, so progress is not watched)`] : [];
});

const section = `## Semantic search (${today()})

\`bun run bench:semantic\`. ${saves} real corpus pages saved through the API with \`TROVE_SEMANTIC=on\`; the \`embed-items\`
consumer embeds them on the worker pool (2 workers). The library is then grown by copying rows in SQL (bench/library.ts);
each copy gets its original's lexical document and its original's first ${copyChunks} chunk vectors (with pgvector: with
Gaussian noise, sigma 0.005 per component, normalised again; the fallback: as they are, its exact scan costing the same),
since embedding 100k pages at this rate would take a day. Queries (not
the library's words): ${queries.map((q) => `\`${q}\``).join(", ")}; items search with \`limit=20\`, up to ${samples} requests each
(after 2 unmeasured), one at a time, stopping after ${budgetMs / 1000} s once 5 are in. The response's mode is in the table (hybrid
served as hybrid). Target at 100k items (issue 9): hybrid p95 <= 150 ms in both deployments.

${table}

Query embedding alone (one short text on a warm worker, in the bench process): p50 ${queryEmbed.p50.toFixed(0)} ms, p95 ${queryEmbed.p95.toFixed(0)} ms (n=${queryEmbed.n}).

Embedding throughput:
${embedLines.join("\n")}

${sizeLines.join("\n")}

${machine}
`;
if (!process.env.BENCH_NO_WRITE) await writeSection("Semantic search", section);
console.log(section);
