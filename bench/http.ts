// `bun run bench`: HTTP throughput, latency and CPU per request in one run on this machine, with wrk, on a realistic
// library (bench/library.ts: real corpus pages saved through the API, tagged and highlighted, grown by copying rows
// in SQL):
//   floors       (a) bare Elysia JSON, (b0) bare Elysia -> NATS request-reply echo
//   embedded     `bun run start` (PGlite + in-process bus): one item with content and highlights, the newest list
//                page of 50 without and with content, and a page of 50 long articles with content; beside (e0) bare
//                Elysia + PGlite reading the same rows of the same data directory (the ceiling of that deployment)
//   distributed  every service its own process over PostgreSQL + NATS: the same four reads beside (b) the
//                gateway -> bus echo (GET /api/ping); (c') the item read with think time (not saturated)
// Writes the `## HTTP` section of docs/benchmarks.md. Needs wrk (apt-get install wrk), PostgreSQL, NATS and the
// shared corpus beside the checkout. Knobs: BENCH_SECONDS (10), BENCH_SAVES (pages saved through the API, 300),
// BENCH_ITEMS (library size after copying, 10000).
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { openDatabase, pgliteLayout } from "@trove/db";
import { aliceKey, backingServices, dropScratchDatabase, freePort, processEnv, repoRoot, waitForHealth, type Backing } from "@trove/testing";
import { copyToSize, corpusPages, loadThroughApi, typicalItem, type Loaded, type SavedItem } from "./library.ts";
import { writeSection } from "./report.ts";
import { query, type Db } from "./sql.ts";
import { cpuByPid, cpuSince, natsServerPids, spawnQuiet, startDistributed, stopAll, treeOf } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const saves = Number(process.env.BENCH_SAVES ?? 300);
const libraryItems = Number(process.env.BENCH_ITEMS ?? 10_000);
const connections = 50;
// A page with content is hundreds of KiB: 50 connections would only queue behind each other for seconds.
const contentConnections = 10;
const listPage = 50;
const loadAtStart = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");

type Group = "floor" | "embedded" | "distributed";
/** Named groups of pids whose CPU time is charged to the requests of a scenario. */
type CpuGroups = () => Promise<Record<string, number[]>>;
interface Result {
  group: Group;
  key: string;
  name: string;
  connections: number;
  bytes: number;
  rps: number;
  p50: string;
  p99: string;
  /** CPU microseconds per request by process group, wrk's own included. */
  cpu: Record<string, number>;
  errors: string;
}

const auth = [`Authorization: Bearer ${aliceKey}`];
const results: Result[] = [];

/** One request first: the scenario must answer 2xx (a list page: all of its items), and its body size is reported. */
async function probe(url: string, headers: string[]): Promise<number> {
  const res = await fetch(url, { headers: Object.fromEntries(headers.map((h) => h.split(": ") as [string, string])) });
  const body = await res.arrayBuffer();
  const text = new TextDecoder().decode(body);
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  if (url.includes("/api/items?")) {
    const page = JSON.parse(text) as { items: unknown[]; offset: number; nextOffset: number | null };
    if (page.items.length !== listPage || page.nextOffset !== page.offset + listPage) {
      throw new Error(`${url} answered ${page.items.length} items, nextOffset ${page.nextOffset}: not a full page of ${listPage}`);
    }
  }
  return body.byteLength;
}

async function measure(
  group: Group,
  key: string,
  name: string,
  url: string,
  cpu: CpuGroups,
  opts: { auth?: boolean; connections?: number; thinkMs?: number } = {},
): Promise<Result> {
  const headers = (opts.auth ? auth : []).flatMap((h) => ["-H", h]);
  const bytes = await probe(url, opts.auth ? auth : []);
  const conns = opts.connections ?? connections;
  Bun.spawnSync(["wrk", "-t2", `-c${Math.min(10, conns)}`, "-d2s", "--timeout", "30s", ...headers, url]); // warm-up
  const think = opts.thinkMs === undefined ? [] : ["-s", join(repoRoot, "bench", "think.lua")];
  const groups = await cpu();
  const before = Object.entries(groups).map(([k, pids]) => [k, cpuByPid(pids)] as const);
  // A slow answer is measured, not dropped: wrk's own 2 s timeout would leave it out of the latencies.
  const out = Bun.spawnSync(["wrk", "-t2", `-c${conns}`, `-d${seconds}s`, "--timeout", "30s", "--latency", ...think, ...headers, url], {
    env: { ...process.env, THINK_MS: String(opts.thinkMs ?? 0) },
  });
  const text = out.stdout.toString();
  if (!/requests in/.test(text)) throw new Error(`wrk gave no result for ${url}: ${text} ${out.stderr.toString()}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  // No request finished: no rate, no latency, no CPU per request (NaN prints as such).
  const perRequest = Object.fromEntries(before.map(([k, used]) => [k, requests > 0 ? cpuSince(used) / requests : Number.NaN]));
  perRequest.wrk = requests > 0 ? Number(out.resourceUsage.cpuTime.total) / requests : Number.NaN;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? "?";
  const p99 = /^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? "?";
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1];
  const sockErr = /Socket errors:.*/.exec(text)?.[0];
  const errors = [requests === 0 && `no request finished in ${seconds} s`, non2xx && `${non2xx} non-2xx`, sockErr].filter(Boolean).join("; ") || "none";
  const result = { group, key, name, connections: conns, bytes, rps, p50, p99, cpu: perRequest, errors };
  console.log(`${group} ${name} (${conns} connections): ${rps.toFixed(1)} req/s, p50 ${p50}, p99 ${p99}, ${bytes} B, CPU ${cpuText(perRequest)}, errors: ${errors}`);
  results.push(result);
  return result;
}

/** Waits until `url` answers 2xx: listening is not enough (the echo answers 503 until its service subscribes). */
async function waitHttp(url: string) {
  for (let i = 0; i < 600; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Median execution time (ms, EXPLAIN ANALYZE, 5 runs) of the two queries behind a list page without content. */
async function listQueryTimes(db: Db, account: string): Promise<{ count: number; page: number }> {
  const where = "where account_id = $1 and status in ('stashed', 'flagged')";
  const time = async (text: string) => {
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [row] = await query<{ "QUERY PLAN": unknown }>(db, `explain (analyze, format json) ${text}`, [account]);
      const plan = typeof row?.["QUERY PLAN"] === "string" ? JSON.parse(row["QUERY PLAN"]) : row?.["QUERY PLAN"];
      runs.push(Number((plan as { "Execution Time": number }[])[0]?.["Execution Time"]));
    }
    return runs.sort((x, y) => x - y)[2]!;
  };
  return {
    count: await time(`select count(*) from items.items ${where}`),
    page: await time(`select id, title, url, tags, collections, content_size from items.items ${where} order by created_at desc, id desc limit ${listPage}`),
  };
}

/** The NATS server's max_payload, from the INFO line it sends on connect. */
async function natsMaxPayload(natsUrl: string): Promise<number> {
  const { hostname, port } = new URL(natsUrl);
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = createConnection({ host: hostname, port: Number(port || 4222) });
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const line = /^INFO (\{.*\})\s*\n/.exec(text);
      if (!line) return;
      socket.destroy();
      resolve(Number((JSON.parse(line[1]!) as { max_payload: number }).max_payload));
    });
    socket.on("error", reject);
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error("no INFO from NATS"));
    });
  });
}

function sh(cmd: string[]): string {
  try {
    return Bun.spawnSync(cmd).stdout.toString().trim();
  } catch {
    return "unknown";
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? kb(n) : `${(n / 1024 / 1024).toFixed(2)} MiB`);
const cpuText = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ");
const pct = (a: Result | undefined, b: Result | undefined) => (a && b && b.rps > 0 ? `${((a.rps / b.rps) * 100).toFixed(0)} %` : "?");

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const b: Backing = backing;
const pages = corpusPages(saves);
const troveEnv = { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "info", TROVE_VALIDATE_RESPONSES: "0", TROVE_INGEST_WAIT_MS: "60000" };
const floorEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NATS_URL: b.natsUrl, TROVE_BUS_PREFIX: b.prefix };
// Every process started here, so that a failed run stops them too.
const running = new Set<Subprocess>();
const spawn = (args: string[], env: Record<string, string>): Subprocess => {
  const proc = spawnQuiet(args, env);
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  return proc;
};
const listUrl = (base: string, content: boolean, offset = 0) =>
  `${base}/api/items?limit=${listPage}${offset > 0 ? `&offset=${offset}` : ""}${content ? "&include=content" : ""}`;

interface Library {
  loaded: Loaded;
  copied: { added: number; seconds: number };
  typical: SavedItem;
  queries: { count: number; page: number };
}
const libraries: Partial<Record<"embedded" | "distributed", Library>> = {};
let postgresVersion = "unknown";
let pgliteVersion = "unknown";
let thinkMs = 0;
/** The stored sizes of the item read alone (distributed). */
let typicalRow: { markdown: number; structured: number } | undefined;

try {
  console.log(`${pages.length} corpus pages to save; library of ${libraryItems} items; ${seconds} s per scenario; load average ${loadAtStart}`);
  // (a) bare Elysia
  {
    const port = await freePort();
    const proc = spawn(["bench/servers.ts", "bare", String(port)], floorEnv);
    await waitHttp(`http://127.0.0.1:${port}/json`);
    await measure("floor", "a", "(a) bare Elysia JSON", `http://127.0.0.1:${port}/json`, async () => ({ server: treeOf(proc.pid) }));
    await stopAll([proc]);
  }
  // (b0) bare Elysia -> NATS -> echo service (the floor of any HTTP -> NATS round trip)
  {
    const port = await freePort();
    const svc = spawn(["bench/servers.ts", "echo-service"], floorEnv);
    const gw = spawn(["bench/servers.ts", "echo-gateway", String(port)], floorEnv);
    await waitHttp(`http://127.0.0.1:${port}/echo`);
    await measure("floor", "b0", "(b0) bare Elysia -> NATS echo", `http://127.0.0.1:${port}/echo`, async () => ({
      http: treeOf(gw.pid),
      echo: treeOf(svc.pid),
      nats: natsServerPids(),
    }));
    await stopAll([gw, svc]);
  }
  // Embedded: bun run start on PGlite + in-process bus. Saved through the API, stopped, grown in SQL, started again.
  {
    const dataDir = mkdtempSync(join(tmpdir(), "trove-bench-"));
    try {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const env = { ...processEnv(b, port, troveEnv), TROVE_DATA_DIR: dataDir } as Record<string, string>;
      delete env.DATABASE_URL;
      delete env.NATS_URL;
      let proc = spawn(["start"], env);
      await waitForHealth(url);
      const loaded = await loadThroughApi(url, pages);
      console.log(`embedded: ${loaded.items.length} items saved through the API in ${loaded.seconds.toFixed(1)} s`);
      await stopAll([proc]);
      const database = await openDatabase({ dataDir });
      const copied = await copyToSize(database.db, libraryItems);
      const queries = await listQueryTimes(database.db, copied.account);
      pgliteVersion = `${pgliteLayout.split("-")[0]} (PostgreSQL ${(await query<{ v: string }>(database.db, "select current_setting('server_version') as v"))[0]?.v})`;
      await database.close();
      console.log(`embedded: ${copied.added} rows copied in ${copied.seconds.toFixed(1)} s; count ${queries.count} ms, page ${queries.page} ms`);
      const typical = typicalItem(loaded.items);
      libraries.embedded = { loaded, copied, typical, queries };

      proc = spawn(["start"], env);
      await waitForHealth(url);
      const trove = async () => ({ trove: treeOf(proc.pid) });
      await measure("embedded", "e1", "GET /api/items/{id}", `${url}/api/items/${typical.id}`, trove, { auth: true });
      await measure("embedded", "e2", `GET /api/items?limit=${listPage}`, listUrl(url, false), trove, { auth: true });
      await measure("embedded", "e3", `GET /api/items?limit=${listPage}&include=content`, listUrl(url, true), trove, { auth: true, connections: contentConnections });
      // The oldest originals: the first pages saved, the long Readability articles.
      const longPage = loaded.items.length - listPage;
      await measure("embedded", "e4", `GET /api/items?limit=${listPage}&offset=${longPage}&include=content (long articles)`, listUrl(url, true, longPage), trove, {
        auth: true,
        connections: contentConnections,
      });
      await stopAll([proc]);

      // The ceiling: Elysia + PGlite on the same directory, the same rows, nothing else.
      const barePort = await freePort();
      const bare = `http://127.0.0.1:${barePort}`;
      const ceiling = spawn(["bench/servers.ts", "pglite", String(barePort), dataDir], floorEnv);
      await waitHttp(`${bare}/items/${typical.id}`);
      const server = async () => ({ server: treeOf(ceiling.pid) });
      await measure("embedded", "e0-1", "(e0) bare Elysia + PGlite: the same item row by primary key", `${bare}/items/${typical.id}`, server);
      await measure("embedded", "e0-2", `(e0) bare Elysia + PGlite: the ${listPage} newest rows, no content, no count`, `${bare}/items?account=${copied.account}&content=0`, server);
      await measure("embedded", "e0-3", `(e0) bare Elysia + PGlite: the ${listPage} newest whole rows, no count`, `${bare}/items?account=${copied.account}&content=1`, server, {
        connections: contentConnections,
      });
      await stopAll([ceiling]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  // Distributed: every service its own process over NATS + PostgreSQL.
  {
    const topo = await startDistributed({ ...b, prefix: `${b.prefix}d` }, troveEnv);
    const database = await openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 });
    try {
      const url = topo.url;
      const loaded = await loadThroughApi(url, pages);
      console.log(`distributed: ${loaded.items.length} items saved through the API in ${loaded.seconds.toFixed(1)} s`);
      const copied = await copyToSize(database.db, libraryItems);
      const queries = await listQueryTimes(database.db, copied.account);
      postgresVersion = (await query<{ v: string }>(database.db, "select current_setting('server_version') as v"))[0]?.v.split(" ")[0] ?? "unknown";
      console.log(`distributed: ${copied.added} rows copied in ${copied.seconds.toFixed(1)} s; count ${queries.count} ms, page ${queries.page} ms`);
      const typical = typicalItem(loaded.items);
      [typicalRow] = await query<{ markdown: number; structured: number }>(
        database.db,
        "select octet_length(content_markdown) as markdown, octet_length(content::text) as structured from items.items where id = $1",
        [typical.id],
      );
      libraries.distributed = { loaded, copied, typical, queries };

      // The services' pools are open after the warm-up; only this run's database backends are charged.
      const cpu = async () => ({
        gateway: treeOf(topo.procs.get("gateway")!.pid),
        items: treeOf(topo.procs.get("items")!.pid),
        postgres: (await query<{ pid: number }>(database.db, "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).map((r) => r.pid),
        nats: natsServerPids(),
      });
      await measure("distributed", "b", "(b) GET /api/ping: gateway -> NATS echo (items)", `${url}/api/ping`, cpu, { auth: true });
      const item = await measure("distributed", "d1", "GET /api/items/{id}", `${url}/api/items/${typical.id}`, cpu, { auth: true });
      // Think time such that the connections offer about half of the peak rate just measured.
      thinkMs = Math.max(1, Math.round((connections / (item.rps / 2)) * 1000));
      await measure("distributed", "d1'", `(c') GET /api/items/{id}, ${thinkMs} ms think time per connection`, `${url}/api/items/${typical.id}`, cpu, { auth: true, thinkMs });
      await measure("distributed", "d2", `GET /api/items?limit=${listPage}`, listUrl(url, false), cpu, { auth: true });
      await measure("distributed", "d3", `GET /api/items?limit=${listPage}&include=content`, listUrl(url, true), cpu, { auth: true, connections: contentConnections });
      const longPage = loaded.items.length - listPage;
      await measure("distributed", "d4", `GET /api/items?limit=${listPage}&offset=${longPage}&include=content (long articles)`, listUrl(url, true, longPage), cpu, {
        auth: true,
        connections: contentConnections,
      });
    } finally {
      await database.close();
      await topo.stop();
    }
  }
} finally {
  await stopAll(running);
  await b.stop();
  await dropScratchDatabase(b.databaseUrl).catch(() => {});
}

// The report.
const r = (key: string) => results.find((x) => x.key === key);
const lib = libraries.embedded!;
const dist = libraries.distributed!;
const sizes = lib.loaded.items.map((x) => x.contentSize).sort((x, y) => x - y);
const quantile = (q: number) => sizes[Math.min(sizes.length - 1, Math.floor(q * sizes.length))] ?? 0;
const highlighted = lib.loaded.items.filter((x) => x.highlights > 0);
const highlightCount = lib.loaded.items.reduce((n, x) => n + x.highlights, 0);
const cpuModel = /model name\s*:\s*(.*)/.exec(await Bun.file("/proc/cpuinfo").text())?.[1] ?? "unknown cpu";
const meminfo = await Bun.file("/proc/meminfo").text();
const gib = (field: string) => (Number(new RegExp(`${field}:\\s+(\\d+)`).exec(meminfo)?.[1] ?? 0) / 1024 / 1024).toFixed(0);
const natsVersion = sh(["nats-server", "--version"]).replace(/^nats-server:\s*v?/, "") || "unknown";
const wrkVersion = /wrk (\S+)/.exec(sh(["wrk", "-v"]))?.[1] ?? "unknown";
const elysiaVersion = ((await Bun.file(join(repoRoot, "package.json")).json()) as { devDependencies: Record<string, string> }).devDependencies.elysia;
const groupName: Record<Group, string> = { floor: "floors", embedded: "embedded", distributed: "distributed" };
const rate = (x: number) => (x < 100 ? x.toFixed(1) : x.toFixed(0));
const row = (x: Result) =>
  `| ${groupName[x.group]} | ${x.name} | ${size(x.bytes)} | ${x.connections} | ${rate(x.rps)} | ${x.p50} | ${x.p99} | ${cpuText(x.cpu)} | ${x.errors} |`;
const total = (x: Result | undefined) => (x ? Object.values(x.cpu).reduce((a, v) => a + v, 0) : 0);
const ms = (x: number) => `${x.toFixed(2)} ms`;
const date = new Date().toISOString().slice(0, 10);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
// Busy: other work kept more than half the cores running on average over the last minute.
const busy = Number(loadAtStart.split(" ")[0]) > navigator.hardwareConcurrency / 2;
// NatsBus sends replies above max_payload less 64 KiB through the NATS Object Store.
const spillBytes = (await natsMaxPayload(b.natsUrl).catch(() => 1024 * 1024)) - 64 * 1024; // NATS's default on failure
const path = (x: Result | undefined) => ((x?.bytes ?? 0) > spillBytes ? "through the object store" : "as one message");
const split = (x: Result | undefined) => ["items", "gateway", "nats"].map((k) => (x?.cpu[k] ?? 0).toFixed(0)).join(" / ");

const section = [
  `## HTTP (${date})`,
  "",
  `Command: \`bun run bench\` (\`bench/http.ts\`) with BENCH_SECONDS=${seconds}, BENCH_SAVES=${saves}, BENCH_ITEMS=${libraryItems}.`,
  `Machine: ${navigator.hardwareConcurrency} cores (${cpuModel}, KVM), ${gib("MemTotal")} GiB of memory; load average ${loadAtStart} when the run`,
  `started. Bun ${Bun.version}, Elysia ${elysiaVersion}, PGlite ${pgliteVersion}, PostgreSQL ${postgresVersion} and nats-server`,
  `${natsVersion} on the same machine; wrk ${wrkVersion}, 2 threads, ${connections} connections (${contentConnections} for pages with content), ${seconds} s after a 2 s`,
  "warm-up, 30 s request timeout, on the same two cores as the servers. Trove runs with `LOG_LEVEL=info` (one access line",
  "per request, to /dev/null), response validation off and the rate limit out of the way.",
  ...(busy
    ? [
        "",
        `**Other work shared the two cores during this run** (load average ${loadAtStart.split(" ")[0]} before it started): every figure below is`,
        "low and noisy, ratios less so. To be re-run on a quiet machine.",
      ]
    : []),
  "",
  `The library, built the same way in each deployment: ${pages.length} pages of the shared corpus (the Readability test pages, then`,
  "snippet-checked pages, read from `../shared/corpus` and never copied into the repository) saved through `POST /api/ingest`",
  "with `html`, so each one's content went through extraction and storage; every item then tagged (1-4 tags), every fifth",
  "given a note and every other one 1-3 highlights, all through the API" +
    (lib.loaded.withoutContent > 0 ? ` (${lib.loaded.withoutContent} pages gave no content and were deleted again).` : "."),
  `That gave ${lib.loaded.items.length} items, all with content, ${highlighted.length} of them with ${highlightCount} highlights; Markdown per item: median`,
  `${kb(quantile(0.5))}, p90 ${kb(quantile(0.9))}, largest ${kb(sizes.at(-1) ?? 0)}. These rows were then copied in SQL to ${libraryItems} items (\`copyToSize\` in`,
  "`bench/library.ts`: new ids, URLs and dates a week older per round, with their tag links, highlights and media; ANALYZE",
  `after). Loading took ${lib.loaded.seconds.toFixed(0)} s through the API + ${lib.copied.seconds.toFixed(1)} s of SQL embedded, ${dist.loaded.seconds.toFixed(0)} s + ${dist.copied.seconds.toFixed(1)} s distributed.`,
  `The item read alone is the highlighted item whose Markdown is nearest the median: ${kb(lib.typical.contentSize)} of Markdown,`,
  `${plural(lib.typical.highlights, "highlight")}, ${plural(lib.typical.tags, "tag")}. A list page is the ${listPage} newest items, with \`count\` over the whole library.`,
  "CPU is microseconds per request for each process, from /proc around the timed run (nats-server is shared with",
  "whatever else uses it on the machine; under contention every CPU figure is inflated).",
  "",
  "| deployment | scenario | response | connections | requests/s | p50 | p99 | CPU µs per request | errors |",
  "|---|---|---:|---:|---:|---:|---:|---|---|",
  ...results.map(row),
  "",
  "Each deployment against its own ceiling, in the same run:",
  "",
  `- Embedded (one process, PGlite + in-process bus) against bare Elysia + PGlite on the same data directory: the item read`,
  `  ${pct(r("e1"), r("e0-1"))} of the primary-key read of its row, the list page ${pct(r("e2"), r("e0-2"))} of a bare ${listPage}-row read, with content ${pct(r("e3"), r("e0-3"))}`,
  `  of a bare read of the ${listPage} whole rows.`,
  `- Distributed against the gateway -> bus echo (b): the item read ${pct(r("d1"), r("b"))} (target at least 50 %), the list page ${pct(r("d2"), r("b"))},`,
  `  with content ${pct(r("d3"), r("b"))}; against the bare Elysia -> NATS echo (b0): the item read ${pct(r("d1"), r("b0"))}. Item read p99 ${r("d1")?.p99} at`,
  `  saturation, ${r("d1'")?.p99} at about half its peak rate (target at most 10 ms at ${connections} connections).`,
  "",
  "Reading:",
  "",
  `- Content costs. For comparison only (another day, another load): on 2026-11-21 the reads of an item without content`,
  `  gave 3129 (embedded) and 9615 (distributed) requests/s. The item read here stores ${kb(typicalRow?.markdown ?? 0)} of Markdown and`,
  `  ${kb(typicalRow?.structured ?? 0)} of structured content (jsonb as text); it answers ${size(r("d1")?.bytes ?? 0)} (the Markdown twice, as \`contentMarkdown\` and`,
  `  inside the structured content, plus the highlights) and costs ${total(r("d1")).toFixed(0)} µs of CPU per request distributed, against`,
  `  ${total(r("b")).toFixed(0)} µs for the echo (b); ${total(r("e1")).toFixed(0)} µs embedded. On two cores that total, not the concurrency, bounds the rate.`,
  `- Lists pay for \`count\` on every page. EXPLAIN ANALYZE on the ${libraryItems}-item library: counting the account's items takes`,
  `  ${ms(dist.queries.count)} in PostgreSQL and ${ms(lib.queries.count)} in PGlite (it reads every row); reading the page of ${listPage} takes`,
  `  ${ms(dist.queries.page)} and ${ms(lib.queries.page)}. The count grows with the library, the page does not; the bare (e0) list reads do no count.`,
  `- One process against several: embedded, the item read reaches ${pct(r("e1"), r("d1"))} of the distributed rate. Embedded Trove is one`,
  "  event loop with PGlite (WebAssembly) on the same thread, so it uses at most about one of the two cores; its bare (e0)",
  "  ceiling has the same limit.",
  `- Pages with content: the newest ${listPage} items carry ${size(r("e3")?.bytes ?? 0)}, the ${listPage} oldest originals (the long Readability articles)`,
  `  ${size(r("e4")?.bytes ?? 0)}, the Markdown twice again. Distributed, a reply above ${size(spillBytes)} (max_payload less 64 KiB) crosses the bus`,
  "  through the NATS Object Store instead of as one message; either way the gateway passes the JSON through unparsed.",
  `  CPU µs per page, items / gateway / nats-server: ${split(r("d3"))} for the newest page (${path(r("d3"))}),`,
  `  ${split(r("d4"))} for the long one (${path(r("d4"))}); embedded ${(r("e3")?.cpu.trove ?? 0).toFixed(0)} and ${(r("e4")?.cpu.trove ?? 0).toFixed(0)}.`,
  "",
].join("\n");

await writeSection("HTTP", section);
console.log(section);
