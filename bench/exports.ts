// `bun run bench:exports`: export and import jobs (issue 11), measured from outside the services.
//   exports    distributed deployment (every service its own process over PostgreSQL + NATS): a library of real
//              corpus pages saved through the API (tagged, noted, highlighted; some put in collections, archived or
//              flagged), grown by copying rows in SQL to each of BENCH_EXPORT_ITEMS (10,000 then 100,000); at each
//              size one export job per format in BENCH_FORMATS (json, markdown_zip, csv) with content. Before each
//              job the exports process is restarted, so its idle RSS and its peak (VmRSS sampled every 100 ms and
//              VmHWM, reset through /proc/<pid>/clear_refs) belong to that job alone. Then the file is downloaded
//              through the gateway (read to the end, bytes counted, nothing kept) while the gateway's RSS is sampled.
//   imports    a generated Netscape bookmark file of BENCH_IMPORT_BOOKMARKS (10,000) entries, uploaded as the raw
//              request body into a fresh distributed deployment (empty library), once per host gap in
//              BENCH_IMPORT_GAP_MS (TROVE_IMPORT_HOST_GAP_MS; 2000, the shipped default, then 0: the background
//              fetch as fast as it goes, beside the saves). Every URL's host
//              ends in `.invalid`, which the fetch guard refuses before any lookup (libs/webfetch/guard.ts), so the
//              background fetches fail at once and nothing leaves the machine.
//   embedded   `bun run start` on PGlite (one process), BENCH_EMBEDDED_ITEMS (10,000): each export format, then the
//              same bookmark import into that library.
// BENCH_ONLY=exports,imports,embedded picks parts (all by default; `report`: none, the section written again from
// the results file). Each part's results go to BENCH_RESULTS (/tmp/trove-bench-exports.json) as it ends; parts not
// run this time are reported from that file, with their own date and load. Writes the `## Exports and imports`
// section of docs/benchmarks.md (BENCH_NO_WRITE=1: not). Needs PostgreSQL, NATS and the shared corpus.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { aliceKey, type Backing, backingServices, dropScratchDatabase, waitForHealth } from "@trove/testing";
import { call } from "./api.ts";
import { copyToSize, corpusPages, loadThroughApi, type SavedItem } from "./library.ts";
import { machineLine, today, writeSection } from "./report.ts";
import { type Db, query } from "./sql.ts";
import { cpuByPid, type Distributed, measuringEnv, natsServerPids, startDistributed, startEmbedded, treeOf } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const list = (v: string | undefined, fallback: string) => (v ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
const exportSizes = list(process.env.BENCH_EXPORT_ITEMS, "10000,100000").map(Number);
const formats = list(process.env.BENCH_FORMATS, "json,markdown_zip,csv") as Format[];
const importBookmarks = Number(process.env.BENCH_IMPORT_BOOKMARKS ?? 10_000);
const importGaps = list(process.env.BENCH_IMPORT_GAP_MS, "2000,0").map(Number);
const embeddedItems = list(process.env.BENCH_EMBEDDED_ITEMS, "10000").map(Number);
const saves = Number(process.env.BENCH_SAVES ?? 100);
/** Seconds the background fetch is watched after an import completed (fetches per second). */
const fetchWatchSeconds = Number(process.env.BENCH_FETCH_WATCH_S ?? 30);
const parts = new Set(list(process.env.BENCH_ONLY, "exports,imports,embedded"));
const resultsFile = process.env.BENCH_RESULTS ?? "/tmp/trove-bench-exports.json";
/**
 * BENCH_PROFILE=<dir>: the exports and items processes run under `--cpu-prof-md` (a profile per job and process
 * under <dir>, written when the process stops); slower, so nothing is saved or written to docs/benchmarks.md.
 */
const profileDir = process.env.BENCH_PROFILE;
const sampleMs = 100;
const pollMs = 200;
const machine = await machineLine();

type Format = "json" | "markdown_zip" | "csv";
type Part = "exports" | "imports" | "embedded";

const troveEnv: Record<string, string> = { ...measuringEnv, TROVE_MAX_OPEN_JOBS: "10" };

// ---- processes: memory and CPU ---------------------------------------------------------------------------------

/** VmRSS and VmHWM of a process in MiB (0 when it is gone). */
function mem(pid: number): { rss: number; hwm: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/**
 * The process that runs the service: of the tree under the spawned `bun run` (which may run the script in a child),
 * the one with the most memory.
 */
function serviceProcess(root: number): number {
  const tree = treeOf(root);
  return tree.reduce((best, pid) => (mem(pid).rss > mem(best).rss ? pid : best), tree[0]!);
}

/** Sets VmHWM back to the current RSS (Linux: `5` to clear_refs), so the next reading is this job's peak. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS of named processes every 100 ms; stop() gives each one's peak (the higher of the samples and VmHWM). */
function sampleRss(pids: Record<string, number>) {
  const reset = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, resetPeak(pid)]));
  const peak: Record<string, number> = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, mem(pid).rss]));
  let samples = 0;
  const timer = setInterval(() => {
    samples++;
    for (const [k, pid] of Object.entries(pids)) peak[k] = Math.max(peak[k]!, mem(pid).rss);
  }, sampleMs);
  return () => {
    clearInterval(timer);
    const out: Record<string, { peak: number; sampled: number; hwm: number | null; end: number }> = {};
    for (const [k, pid] of Object.entries(pids)) {
      const m = mem(pid);
      const sampled = Math.max(peak[k]!, m.rss);
      out[k] = { peak: Math.max(sampled, reset[k] ? m.hwm : 0), sampled, hwm: reset[k] ? m.hwm : null, end: m.rss };
    }
    return { byName: out, samples };
  };
}

/** CPU seconds each named process (pids, summed) used while fn ran. */
async function cpuDuring<T>(pids: Record<string, number[]>, fn: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, ps]) => [k, cpuByPid(ps)]));
  const result = await fn();
  const cpu: Record<string, number> = {};
  for (const [k, ps] of Object.entries(pids)) {
    const after = cpuByPid(ps);
    let us = 0;
    for (const [pid, used] of after) us += used - (before[k]!.get(pid) ?? used);
    cpu[k] = us / 1e6;
  }
  return { result, cpu };
}

const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** Backend processes of the PostgreSQL on this machine (shared with whatever else uses it). */
const postgresPids = () => Bun.spawnSync(["pgrep", "-x", "postgres"]).stdout.toString().trim().split("\n").filter(Boolean).map(Number);

/** Which process owns each client port connected to PostgreSQL (from `ss`). */
function pgClientOwners(): Map<number, number> {
  const out = new Map<number, number>();
  const text = Bun.spawnSync(["ss", "-tnpH", "state", "established", "( dport = :5432 )"]).stdout.toString();
  for (const line of text.split("\n")) {
    const m = /:(\d+)\s+\S+:5432\s+users:\(\("[^"]*",pid=(\d+)/.exec(line);
    if (m) out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}

export interface PgWaits {
  /** Samples taken (every 100 ms). */
  samples: number;
  /** Per service: in how many samples each of its connections was in each state, by `state` / wait event. */
  byService: Record<string, Record<string, number>>;
}

/**
 * Samples pg_stat_activity of one database every 100 ms: for each connection of a named process (by client port),
 * what it is doing: `active` (running a statement; `active:IO:WALSync` waiting for the commit's flush, `active:Lock:…`
 * for a lock), `idle in transaction` (waiting for its client within a transaction), `idle` (in the pool).
 */
function samplePgWaits(db: Db, datname: string, pids: Record<string, number>) {
  const nameOf = new Map(Object.entries(pids).map(([k, pid]) => [pid, k] as const));
  let owners = pgClientOwners();
  let refreshed = Date.now();
  const out: PgWaits = { samples: 0, byService: {} };
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const rows = await query<{ port: number; state: string; w: string | null }>(
        db,
        `select client_port as port, state, wait_event_type || ':' || wait_event as w from pg_stat_activity
         where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        [datname],
      );
      out.samples++;
      for (const r of rows) {
        if (!owners.has(r.port) && Date.now() - refreshed > 1000) (owners = pgClientOwners()), (refreshed = Date.now());
        const name = nameOf.get(owners.get(r.port) ?? -1) ?? "other";
        const label = r.state === "active" && r.w && r.w !== "Client:ClientRead" ? `active:${r.w}` : r.state;
        const m = (out.byService[name] ??= {});
        m[label] = (m[label] ?? 0) + 1;
      }
    } catch {
      // The database went away (the end of the run).
    } finally {
      busy = false;
    }
  }, sampleMs);
  return () => {
    clearInterval(timer);
    return out;
  };
}

// ---- the library -------------------------------------------------------------------------------------------------

const collectionNames = ["Reading list", "Work / Research", "Recipes", "Travel plans", "Longform"];

/** Puts every third saved item in a collection, archives every seventh and flags every eleventh, through the API. */
async function decorate(base: string, items: SavedItem[]): Promise<void> {
  const ids: string[] = [];
  for (const name of collectionNames) ids.push((await call(base, "POST", "/api/collections", { name })).collection.id);
  for (const [i, it] of items.entries()) {
    const body: Record<string, unknown> = {};
    if (i % 3 === 0) body.collectionIds = [ids[i % ids.length]!];
    if (i % 7 === 0) body.status = "archived";
    else if (i % 11 === 0) body.status = "flagged";
    if (Object.keys(body).length > 0) await call(base, "POST", `/api/items/${it.id}`, body);
  }
}

/** copyToSize numbers copies from 1 each time; earlier copies take a `gen` mark so a second growth cannot collide. */
async function markCopies(db: Db, generation: number): Promise<void> {
  const url = `url || '&gen=${generation}'`;
  await query(db, `update items.items set url = ${url}, url_hash = left(encode(sha256(convert_to(${url}, 'UTF8')), 'hex'), 32)
    where url ~ '[?&]copy=' and url !~ '[?&]gen='`);
}

interface Library {
  items: number;
  withContent: number;
  contentMiB: number;
  notes: number;
  highlights: number;
  archived: number;
  inCollections: number;
}

async function libraryStats(db: Db): Promise<Library> {
  const [r] = await query<Record<string, string>>(
    db,
    `select count(*) as items, count(*) filter (where content_markdown is not null) as with_content,
       coalesce(sum(content_size), 0) as content, count(*) filter (where notes <> '') as notes,
       count(*) filter (where status = 'archived') as archived,
       (select count(*) from items.highlights) as highlights,
       (select count(distinct item_id) from items.item_collections) as in_collections
     from items.items`,
  );
  return {
    items: Number(r!.items),
    withContent: Number(r!.with_content),
    contentMiB: Number(r!.content) / 2 ** 20,
    notes: Number(r!.notes),
    highlights: Number(r!.highlights),
    archived: Number(r!.archived),
    inCollections: Number(r!.in_collections),
  };
}

/** Grows the library to `size` items in SQL (as bench/search.ts does), then VACUUM ANALYZE as autovacuum would. */
async function grow(db: Db, size: number): Promise<Library> {
  await markCopies(db, size);
  const grown = await copyToSize(db, size);
  console.log(`  grown to ${size} items (+${grown.added} in ${grown.seconds.toFixed(1)} s)`);
  const t0 = performance.now();
  await query(db, "vacuum analyze");
  console.log(`  vacuum analyze in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return libraryStats(db);
}

// ---- one export ----------------------------------------------------------------------------------------------------

interface ExportResult {
  items: number;
  format: Format;
  seconds: number;
  itemCount: number;
  sizeBytes: number;
  /** The exports process (embedded: the one process): idle before the job, peak during it. */
  idleMiB: number;
  peakMiB: number;
  peakSampledMiB: number;
  hwmMiB: number | null;
  itemsPeakMiB?: number;
  itemsIdleMiB?: number;
  cpu: Record<string, number>;
  download: { seconds: number; bytes: number; idleMiB: number; peakMiB: number; check: string };
  load: { before: string; after: string };
}

/** Where the processes of a deployment are: the exports one, the items one, the one serving downloads. */
interface Procs {
  exports: number;
  items?: number;
  gateway: number;
}

async function waitForJob(base: string, path: string, key: "export" | "import", onPoll?: (job: any, t: number) => void): Promise<{ job: any; seconds: number }> {
  const t0 = performance.now();
  for (;;) {
    const body = await call(base, "GET", path);
    const job = body[key];
    const t = (performance.now() - t0) / 1000;
    onPoll?.(job, t);
    if (job.status === "completed") return { job, seconds: t };
    if (job.status === "failed") throw new Error(`${key} ${job.id} failed: ${job.error}`);
    await Bun.sleep(pollMs);
  }
}

/** Counts what the file says it holds: JSON records (one per line), ZIP entries (the end record), CSV rows (bytes only). */
function fileCheck(format: Format, lines: number, tail: Uint8Array, expected: number): string {
  if (format === "json") {
    // A line feed after the header, after each record, and after the closing `]}`.
    const records = lines - 2;
    return `${records} records${records === expected ? "" : ` (expected ${expected})`}`;
  }
  if (format === "markdown_zip") {
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    for (let i = tail.length - 22; i >= 0; i--) {
      if (view.getUint32(i, true) !== 0x06054b50) continue;
      let entries = view.getUint16(i + 10, true);
      if (entries === 0xffff) {
        // ZIP64: the locator (20 bytes) before the end record points at the ZIP64 end record; its count at +32.
        for (let j = i - 20; j >= 0; j--) {
          if (view.getUint32(j, true) === 0x06064b50) {
            entries = Number(view.getBigUint64(j + 32, true));
            break;
          }
        }
      }
      return `${entries} entries${entries === expected ? "" : ` (expected ${expected})`}`;
    }
    return "no ZIP end record found";
  }
  return `${lines} line feeds`;
}

/** Reads the download to its end, counting bytes (and line feeds), keeping only the last 1 MiB (the ZIP's end). */
async function download(base: string, id: string, format: Format, expected: number) {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/exports/${id}/download`, { headers: { authorization: `Bearer ${aliceKey}` } });
  if (!res.ok) throw new Error(`download: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  const keep = 1 << 20;
  let tail = new Uint8Array(0);
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (format === "markdown_zip") {
      const joined = new Uint8Array(Math.min(keep, tail.length + chunk.length));
      const fromChunk = Math.min(chunk.length, joined.length);
      joined.set(tail.subarray(tail.length - (joined.length - fromChunk)), 0);
      joined.set(chunk.subarray(chunk.length - fromChunk), joined.length - fromChunk);
      tail = joined;
    }
  }
  return { seconds: (performance.now() - t0) / 1000, bytes, check: fileCheck(format, lines, tail, expected) };
}

async function exportOnce(base: string, procs: Procs, items: number, format: Format, cpuPids: Record<string, number[]>): Promise<ExportResult> {
  const loadBefore = loadavg();
  const idle = mem(procs.exports).rss;
  const itemsIdle = procs.items ? mem(procs.items).rss : undefined;
  const watched: Record<string, number> = { exports: procs.exports, ...(procs.items ? { items: procs.items } : {}) };
  const stop = sampleRss(watched);
  const { result: done, cpu } = await cpuDuring(cpuPids, async () => {
    const t0 = performance.now();
    const { export: job } = await call(base, "POST", "/api/exports", { format, includeContent: true });
    const { job: finished } = await waitForJob(base, `/api/exports/${job.id}`, "export");
    return { job: finished, seconds: (performance.now() - t0) / 1000 };
  });
  const peaks = stop();
  const job = done.job;
  console.log(
    `  ${format} ${items}: ${done.seconds.toFixed(1)} s, ${job.itemCount} items, ${(job.sizeBytes / 2 ** 20).toFixed(1)} MiB; exports RSS ${idle.toFixed(0)} -> ${peaks.byName.exports!.peak.toFixed(0)} MiB` +
      (procs.items ? `, items ${itemsIdle!.toFixed(0)} -> ${peaks.byName.items!.peak.toFixed(0)} MiB` : "") +
      `; CPU ${Object.entries(cpu).map(([k, s]) => `${k} ${s.toFixed(1)} s`).join(", ")}`,
  );
  if (job.itemCount !== items) console.warn(`  !! the job counted ${job.itemCount} items, the library has ${items}`);

  // The download, through the gateway (embedded: the one process).
  const gwIdle = mem(procs.gateway).rss;
  const stopGw = sampleRss({ gateway: procs.gateway });
  const dl = await download(base, job.id, format, items);
  const gw = stopGw().byName.gateway!;
  console.log(`  download: ${(dl.bytes / 2 ** 20).toFixed(1)} MiB in ${dl.seconds.toFixed(1)} s; ${dl.check}; gateway RSS ${gwIdle.toFixed(0)} -> ${gw.peak.toFixed(0)} MiB`);
  if (dl.bytes !== job.sizeBytes) console.warn(`  !! downloaded ${dl.bytes} bytes, the job says ${job.sizeBytes}`);
  return {
    items,
    format,
    seconds: done.seconds,
    itemCount: job.itemCount,
    sizeBytes: job.sizeBytes,
    idleMiB: idle,
    peakMiB: peaks.byName.exports!.peak,
    peakSampledMiB: peaks.byName.exports!.sampled,
    hwmMiB: peaks.byName.exports!.hwm,
    ...(procs.items ? { itemsIdleMiB: itemsIdle, itemsPeakMiB: peaks.byName.items!.peak } : {}),
    cpu,
    download: { seconds: dl.seconds, bytes: dl.bytes, idleMiB: gwIdle, peakMiB: gw.peak, check: dl.check },
    load: { before: loadBefore, after: loadavg() },
  };
}

// ---- the bookmark file -----------------------------------------------------------------------------------------------

/** A small deterministic PRNG (mulberry32), so every run uploads the same file. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const siteNames = [
  "github.com", "news.ycombinator.com", "en.wikipedia.org", "medium.com", "nytimes.com", "theguardian.com", "arstechnica.com",
  "lwn.net", "stackoverflow.com", "youtube.com", "developer.mozilla.org", "bbc.co.uk", "lemonde.fr", "spiegel.de",
  "seriouseats.com", "economist.com", "substack.com", "dev.to", "reddit.com", "nature.com", "arxiv.org", "blog.rust-lang.org",
  "postgresql.org", "martinfowler.com", "smittenkitchen.com", "atlasobscura.com", "quantamagazine.org", "newyorker.com",
  "aeon.co", "danluu.com", "jvns.ca", "increment.com", "zeit.de", "elpais.com", "nhk.or.jp", "lonelyplanet.com",
];
const words = [
  "notes", "guide", "rust", "postgres", "garden", "kitchen", "travel", "lisbon", "kyoto", "history", "design", "systems",
  "memory", "latency", "review", "essay", "interview", "budget", "recipe", "bread", "coffee", "climate", "city", "music",
  "typescript", "compiler", "database", "index", "search", "privacy", "archive", "library", "reading", "writing", "café",
  "über", "naïve", "ñandú", "日本", "東京", "Ελλάδα", "Москва",
];
const tagNames = ["to-read", "dev", "rust", "recipes", "travel", "work", "longform", "reference", "à lire", "machine learning", "ideas", "tools", "news", "2024", "favourites"];
/** Folder paths (the bookmarks bar's), the first level under the browser's root; "" is the root itself. */
const folderPaths = [
  "", "Dev", "Dev/Rust", "Dev/TypeScript", "Dev/Databases", "Dev/Databases/PostgreSQL", "Dev/Misc", "Reading", "Reading/Longform",
  "Reading/Misc", "Recipes", "Recipes/Baking", "Travel", "Travel/Japan", "Travel/Portugal", "Work", "Work/Projects",
  "Work/Projects/Trove", "Work/Projects/Archive 2021", "Work/Misc", "Music & Film", "Read later",
];
const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Titles as pages give them: the corpus pages' own <title>s (already HTML-escaped). */
function corpusTitles(): string[] {
  const out: string[] = [];
  for (const p of corpusPages(2000)) {
    const t = /<title[^>]*>([^<]{8,200})<\/title>/i.exec(p.html)?.[1]?.replace(/\s+/g, " ").trim();
    if (t) out.push(t);
  }
  return out;
}

interface BookmarkFile {
  bytes: Uint8Array;
  entries: number;
  hosts: number;
  folders: number;
  duplicates: number;
  unreadable: number;
}

/**
 * A Chrome/Firefox-style Netscape bookmark file: the bookmarks bar (PERSONAL_TOOLBAR_FOLDER) with nested folders,
 * `n` bookmarks on a few hundred hosts (Zipf-like: a few sites hold many), ADD_DATE over 14 years, TAGS on 40%,
 * a description (<DD>) on 10%, a favicon data URI on 10%; 1% repeat an earlier URL in another folder
 * (alreadyPresent) and 0.4% are bookmarklets or Firefox place: queries (failed). Every host ends in `.invalid`.
 */
function bookmarkFile(n: number): BookmarkFile {
  const rand = rng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const titles = corpusTitles();
  const hosts = [...siteNames];
  for (let k = 0; hosts.length < 300; k++) hosts.push(`${words[k % 34]}-${words[(k * 7 + 3) % 34]}${k}.example`);
  const weights = hosts.map((_, k) => 1 / (k + 1) ** 0.9);
  const total = weights.reduce((a, b) => a + b, 0);
  const host = () => {
    let r = rand() * total;
    for (let k = 0; k < hosts.length; k++) if ((r -= weights[k]!) <= 0) return hosts[k]!;
    return hosts.at(-1)!;
  };
  const icon = `data:image/png;base64,${Buffer.from(Array.from({ length: 300 }, (_, k) => (k * 37) % 256)).toString("base64")}`;
  const byFolder = new Map<string, string[]>(folderPaths.map((f) => [f, []]));
  const urls: string[] = [];
  let duplicates = 0;
  let unreadable = 0;
  const start = Date.UTC(2012, 0, 1) / 1000;
  const span = Date.UTC(2026, 0, 1) / 1000 - start;
  for (let i = 0; i < n; i++) {
    const r = rand();
    let url: string;
    if (r < 0.003) (url = `javascript:(function(){location.href='https://read.invalid/save?u='+encodeURIComponent(location.href)})()`), unreadable++;
    else if (r < 0.004) (url = `place:sort=8&maxResults=10`), unreadable++;
    else if (r < 0.014 && urls.length > 0) (url = pick(urls)), duplicates++;
    else {
      const slug = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pick(words)).join("-");
      url = `https://${host()}.invalid/${2012 + Math.floor(rand() * 14)}/${String(1 + Math.floor(rand() * 12)).padStart(2, "0")}/${encodeURIComponent(slug)}-${i}${rand() < 0.15 ? `?utm_source=rss&ref=${i % 97}` : ""}`;
      urls.push(url);
    }
    const title = rand() < 0.7 && titles.length > 0 ? pick(titles) : escapeHtml(Array.from({ length: 3 + Math.floor(rand() * 8) }, () => pick(words)).join(" "));
    const added = Math.floor(start + rand() * span);
    const attrs = [`HREF="${escapeHtml(url)}"`, `ADD_DATE="${added}"`, `LAST_MODIFIED="${added + Math.floor(rand() * 86_400 * 30)}"`];
    if (rand() < 0.1) attrs.push(`ICON="${icon}"`);
    if (rand() < 0.4) attrs.push(`TAGS="${escapeHtml([...new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(tagNames)))].join(","))}"`);
    let line = `<DT><A ${attrs.join(" ")}>${title}</A>`;
    if (rand() < 0.1) line += `\n<DD>${escapeHtml(`Saved from ${pick(words)} thread; see the ${pick(words)} section & the ${pick(words)} notes.`)}`;
    byFolder.get(rand() < 0.2 ? "" : pick(folderPaths))!.push(line);
  }
  // Folders as nested <DL>s, depth first, parents before children.
  const write = (path: string, depth: number): string[] => {
    const pad = "    ".repeat(depth);
    const out = byFolder.get(path)!.map((l) => pad + l);
    for (const child of folderPaths.filter((f) => f !== path && f.startsWith(path === "" ? "" : `${path}/`) && f.split("/").length === (path === "" ? 1 : path.split("/").length + 1))) {
      const name = child.split("/").at(-1)!;
      out.push(`${pad}<DT><H3 ADD_DATE="${start}" LAST_MODIFIED="${start + span}">${escapeHtml(name)}</H3>`, `${pad}<DL><p>`, ...write(child, depth + 1), `${pad}</DL><p>`);
    }
    return out;
  };
  const html = [
    "<!DOCTYPE NETSCAPE-Bookmark-file-1>",
    "<!-- This is an automatically generated file.",
    "     It will be read and overwritten.",
    "     DO NOT EDIT! -->",
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    "<TITLE>Bookmarks</TITLE>",
    "<H1>Bookmarks</H1>",
    "<DL><p>",
    `    <DT><H3 ADD_DATE="${start}" LAST_MODIFIED="${start + span}" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3>`,
    "    <DL><p>",
    ...write("", 2),
    "    </DL><p>",
    "</DL><p>",
    "",
  ].join("\n");
  return { bytes: new TextEncoder().encode(html), entries: n, hosts: new Set(urls.map((u) => new URL(u).hostname)).size, folders: folderPaths.length - 1, duplicates, unreadable };
}

// ---- one import --------------------------------------------------------------------------------------------------------

interface ImportResult {
  deployment: string;
  library: number;
  gapMs: number | null;
  fileBytes: number;
  entries: number;
  uploadSeconds: number;
  parsedSeconds: number | null;
  seconds: number;
  created: number;
  present: number;
  failed: number;
  fetchAtCompletion: { pending: number; fetched: number; failed: number };
  fetchAfterWatch: { pending: number; fetched: number; failed: number; seconds: number };
  fetchReasons: { reason: string; n: number }[];
  exportsIdleMiB: number;
  exportsPeakMiB: number;
  itemsIdleMiB?: number;
  itemsPeakMiB?: number;
  cpu: Record<string, number>;
  pgWaits?: PgWaits;
  /** GET /api/items?limit=1, one at a time every 500 ms while the import ran: how the API answered meanwhile. */
  api: { n: number; p50: number; p95: number; max: number };
  load: { before: string; after: string };
}

/** Asks `path` one request at a time (500 ms apart) until stop(); the latencies in ms. */
function probeApi(base: string, path: string) {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${aliceKey}` } }).catch(() => null);
      await res?.arrayBuffer();
      times.push(performance.now() - t0);
      await Bun.sleep(500);
    }
  })();
  return async () => {
    running = false;
    await loop;
    times.sort((a, b) => a - b);
    const q = (x: number) => times[Math.min(times.length - 1, Math.floor(x * times.length))] ?? 0;
    return { n: times.length, p50: q(0.5), p95: q(0.95), max: times.at(-1) ?? 0 };
  };
}

async function importOnce(
  deployment: string,
  base: string,
  procs: Procs,
  file: BookmarkFile,
  gapMs: number | null,
  library: number,
  cpuPids: Record<string, number[]>,
  fetchReasons: () => Promise<{ reason: string; n: number }[]>,
  pg?: { db: Db; datname: string },
): Promise<ImportResult> {
  const loadBefore = loadavg();
  const stopPg = pg ? samplePgWaits(pg.db, pg.datname, { items: procs.items!, exports: procs.exports }) : undefined;
  const exportsIdle = mem(procs.exports).rss;
  const itemsIdle = procs.items ? mem(procs.items).rss : undefined;
  const stop = sampleRss({ exports: procs.exports, ...(procs.items ? { items: procs.items } : {}) });
  let parsedAt: number | null = null;
  let uploadSeconds = 0;
  const stopApi = probeApi(base, "/api/items?limit=1");
  const { result: done, cpu } = await cpuDuring(cpuPids, async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/imports?format=netscape_html&fileName=bookmarks.html`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceKey}`, "content-type": "text/html" },
      body: file.bytes,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST /api/imports: ${res.status} ${text.slice(0, 300)}`);
    uploadSeconds = (performance.now() - t0) / 1000;
    const id = JSON.parse(text).import.id as string;
    let lastLog = 0;
    const { job } = await waitForJob(base, `/api/imports/${id}?limit=5`, "import", (j) => {
      const t = (performance.now() - t0) / 1000;
      if (parsedAt === null && j.entries > 0) parsedAt = t;
      if (t - lastLog > 10) (lastLog = t), console.log(`  ${t.toFixed(0)} s: ${j.processed}/${j.entries} processed, fetch ${JSON.stringify(j.fetch)}`);
    });
    return { job, seconds: (performance.now() - t0) / 1000, id };
  });
  const peaks = stop().byName;
  const pgWaits = stopPg?.();
  const api = await stopApi();
  const job = done.job;
  const atCompletion = job.fetch;
  console.log(
    `  import: ${done.seconds.toFixed(1)} s (parsed at ${parsedAt === null ? "?" : (parsedAt as number).toFixed(1)} s), created ${job.created}, present ${job.alreadyPresent}, failed ${job.failed}; ` +
      `exports RSS ${exportsIdle.toFixed(0)} -> ${peaks.exports!.peak.toFixed(0)} MiB` +
      (procs.items ? `, items ${itemsIdle!.toFixed(0)} -> ${peaks.items!.peak.toFixed(0)} MiB` : "") +
      `; fetch ${JSON.stringify(atCompletion)}; GET /api/items meanwhile p50 ${api.p50.toFixed(0)} ms, p95 ${api.p95.toFixed(0)} ms, max ${api.max.toFixed(0)} ms (${api.n})`,
  );
  const tw = performance.now();
  await Bun.sleep(fetchWatchSeconds * 1000);
  const after = (await call(base, "GET", `/api/imports/${done.id}?limit=1`)).import.fetch;
  const watched = (performance.now() - tw) / 1000;
  console.log(`  fetch ${watched.toFixed(0)} s later: ${JSON.stringify(after)}`);
  return {
    deployment,
    library,
    gapMs,
    fileBytes: file.bytes.byteLength,
    entries: job.entries,
    uploadSeconds,
    parsedSeconds: parsedAt,
    seconds: done.seconds,
    created: job.created,
    present: job.alreadyPresent,
    failed: job.failed,
    fetchAtCompletion: atCompletion,
    fetchAfterWatch: { ...after, seconds: watched },
    fetchReasons: await fetchReasons(),
    exportsIdleMiB: exportsIdle,
    exportsPeakMiB: peaks.exports!.peak,
    ...(procs.items ? { itemsIdleMiB: itemsIdle, itemsPeakMiB: peaks.items!.peak } : {}),
    cpu,
    ...(pgWaits ? { pgWaits } : {}),
    api,
    load: { before: loadBefore, after: loadavg() },
  };
}

const reasonsSql = `select coalesce(reason, state) as reason, count(*)::int as n from exports.fetches where state <> 'pending' group by 1 order by 2 desc limit 5`;

// ---- the parts ---------------------------------------------------------------------------------------------------------

interface Results {
  exports?: { date: string; machine: string; saved: number; saveSeconds: number; libraries: Library[]; runs: ExportResult[] };
  imports?: { date: string; machine: string; file: Omit<BookmarkFile, "bytes"> & { bytes: number }; runs: ImportResult[] };
  embedded?: { date: string; machine: string; library: Library; runs: ExportResult[]; imports: ImportResult[] };
}
const results: Results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, "utf8")) : {};
const save = () => {
  if (!profileDir) writeFileSync(resultsFile, JSON.stringify(results, null, 2));
};
/** Bun's arguments to profile a process (with BENCH_PROFILE). */
const profiled = (name: string): string[] => (profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${profileDir}/${name}`] : []);

/** Waits until the exports service answers (after its process was restarted), then lets it settle. */
async function exportsReady(base: string): Promise<void> {
  await waitForHealth(base);
  for (let tries = 0; ; tries++) {
    const res = await fetch(`${base}/api/exports?limit=1`, { headers: { authorization: `Bearer ${aliceKey}` } }).catch(() => null);
    if (res?.ok) break;
    if (tries > 300) throw new Error("the exports service did not answer within 30 s of its restart");
    await Bun.sleep(100);
  }
  await Bun.sleep(2000);
}

function distributedProcs(topo: Distributed): Procs {
  return {
    exports: serviceProcess(topo.procs.get("exports")!.pid),
    items: serviceProcess(topo.procs.get("items")!.pid),
    gateway: serviceProcess(topo.procs.get("gateway")!.pid),
  };
}

async function distributedExports(b: Backing): Promise<void> {
  const topo = await startDistributed(b, troveEnv);
  const database = await openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 });
  const part: NonNullable<Results["exports"]> = { date: today(), machine, saved: 0, saveSeconds: 0, libraries: [], runs: [] };
  try {
    const loaded = await loadThroughApi(topo.url, corpusPages(saves));
    await decorate(topo.url, loaded.items);
    part.saved = loaded.items.length;
    part.saveSeconds = loaded.seconds;
    console.log(`distributed: ${loaded.items.length} items saved through the API in ${loaded.seconds.toFixed(1)} s (${loaded.withoutContent} without content, deleted)`);
    for (const size of exportSizes) {
      const lib = await grow(database.db, size);
      part.libraries.push(lib);
      console.log(`distributed at ${size}: ${JSON.stringify(lib)}`);
      for (const format of formats) {
        const old = topo.procs.get("exports") as Subprocess;
        // Profiled, the items process is restarted too (its profile of the job written when it stops).
        if (profileDir) await topo.restart("items", profiled(`${size}-${format}-items`));
        await topo.restart("exports", profiled(`${size}-${format}-exports`));
        await exportsReady(topo.url);
        if (old.pid === topo.procs.get("exports")!.pid) throw new Error("the exports process was not restarted");
        const procs = distributedProcs(topo);
        const cpuPids = { exports: [procs.exports], items: [procs.items!], gateway: [procs.gateway], nats: natsServerPids(), postgres: postgresPids() };
        part.runs.push(await exportOnce(topo.url, procs, lib.items, format, cpuPids));
        results.exports = part;
        save();
      }
    }
  } finally {
    await database.close();
    await topo.stop();
  }
}

async function distributedImports(file: BookmarkFile): Promise<void> {
  const part: NonNullable<Results["imports"]> = { date: today(), machine, file: { ...file, bytes: file.bytes.byteLength }, runs: [] };
  for (const gap of importGaps) {
    // A fresh database and bus namespace each time: the import into an empty library.
    const backing = await backingServices();
    if ("skip" in backing) throw new Error(backing.skip);
    const topo = await startDistributed(backing, { ...troveEnv, TROVE_IMPORT_HOST_GAP_MS: String(gap), TROVE_MAX_BODY_BYTES: String(Math.max(10 << 20, file.bytes.byteLength * 2)) });
    const database = await openDatabase({ databaseUrl: backing.databaseUrl, poolSize: 2 });
    try {
      if (profileDir) {
        await topo.restart("items", profiled(`import-${gap}-items`));
        await topo.restart("exports", profiled(`import-${gap}-exports`));
      }
      await exportsReady(topo.url);
      const procs = distributedProcs(topo);
      const cpuPids = { exports: [procs.exports], items: [procs.items!], gateway: [procs.gateway], nats: natsServerPids(), postgres: postgresPids() };
      console.log(`distributed import, host gap ${gap} ms:`);
      const datname = new URL(backing.databaseUrl).pathname.slice(1);
      part.runs.push(await importOnce("distributed", topo.url, procs, file, gap, 0, cpuPids, () => query(database.db, reasonsSql), { db: database.db, datname }));
      results.imports = part;
      save();
    } finally {
      await database.close();
      await topo.stop();
      await backing.stop();
    }
  }
}

async function embeddedRuns(b: Backing, file: BookmarkFile | undefined): Promise<void> {
  for (const size of embeddedItems) {
    const embedded = await startEmbedded(b, troveEnv, "exports");
    try {
      const loaded = await loadThroughApi(embedded.url, corpusPages(saves));
      await decorate(embedded.url, loaded.items);
      console.log(`embedded: ${loaded.items.length} items saved through the API in ${loaded.seconds.toFixed(1)} s`);
      const lib = await embedded.paused(async () => {
        const database = await openDatabase({ dataDir: embedded.dataDir });
        try {
          return await grow(database.db, size);
        } finally {
          await database.close();
        }
      });
      console.log(`embedded at ${size}: ${JSON.stringify(lib)}`);
      const part: NonNullable<Results["embedded"]> = { date: today(), machine, library: lib, runs: [], imports: [] };
      for (const format of formats) {
        // A fresh process for each job (its data directory stays).
        await embedded.paused(async () => {});
        await Bun.sleep(2000);
        const pid = serviceProcess(embedded.pid());
        part.runs.push(await exportOnce(embedded.url, { exports: pid, gateway: pid }, lib.items, format, { trove: treeOf(embedded.pid()) }));
        results.embedded = part;
        save();
      }
      if (file) {
        await embedded.paused(async () => {});
        await Bun.sleep(2000);
        const pid = serviceProcess(embedded.pid());
        console.log(`embedded import into the ${lib.items}-item library (host gap ${importGaps[0]} ms):`);
        // The embedded data directory is the running process's: reasons are read over the API's job view only.
        part.imports.push(await importOnce("embedded", embedded.url, { exports: pid, gateway: pid }, file, null, lib.items, { trove: treeOf(embedded.pid()) }, async () => []));
        save();
      }
    } finally {
      await embedded.stop();
    }
  }
}

// ---- run ---------------------------------------------------------------------------------------------------------------

console.log(`${machine}\nparts: ${[...parts].join(", ")}; results to ${resultsFile}`);
if (["exports", "imports", "embedded"].some((p) => parts.has(p))) {
  const backing = await backingServices();
  if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
  const b: Backing = backing;
  const file = parts.has("imports") || parts.has("embedded") ? bookmarkFile(importBookmarks) : undefined;
  if (file) console.log(`bookmark file: ${file.entries} entries, ${(file.bytes.byteLength / 2 ** 20).toFixed(2)} MiB, ${file.hosts} hosts, ${file.folders} folders, ${file.duplicates} repeated URLs, ${file.unreadable} unreadable`);
  try {
    if (parts.has("exports")) await distributedExports(b);
    if (parts.has("imports")) await distributedImports(file!);
    if (parts.has("embedded")) {
      // TROVE_IMPORT_HOST_GAP_MS as the first import run's (the embedded process reads it at start).
      troveEnv.TROVE_IMPORT_HOST_GAP_MS = String(importGaps[0]);
      troveEnv.TROVE_MAX_BODY_BYTES = String(Math.max(10 << 20, file!.bytes.byteLength * 2));
      await embeddedRuns(b, file);
    }
  } finally {
    await b.stop();
    await dropNatsNamespace(b.natsUrl, b.prefix).catch(() => {});
    await dropScratchDatabase(b.databaseUrl).catch(() => {});
  }
}

// ---- report --------------------------------------------------------------------------------------------------------------

const mib = (bytes: number) => bytes / 2 ** 20;
const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);
const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
const formatName: Record<Format, string> = { json: "JSON", markdown_zip: "Markdown ZIP", csv: "CSV" };
const cpuText = (cpu: Record<string, number>) => Object.entries(cpu).map(([name, s]) => `${name} ${f1(s)}`).join(", ");

function exportTable(runs: ExportResult[], withItems: boolean): string {
  return [
    `| items | format | time | items/s | file | written MiB/s | ${withItems ? "exports process" : "process"} RSS idle → peak | ${withItems ? "items process RSS idle → peak | " : ""}CPU s during the job | load before → after |`,
    `| --- | --- | --- | --- | --- | --- | --- | ${withItems ? "--- | " : ""}--- | --- |`,
    ...runs.map(
      (r) =>
        `| ${r.items.toLocaleString("en")} | ${formatName[r.format]} | ${f1(r.seconds)} s | ${f0(r.itemCount / r.seconds)} | ${mib(r.sizeBytes) >= 1024 ? `${(mib(r.sizeBytes) / 1024).toFixed(2)} GiB` : `${f0(mib(r.sizeBytes))} MiB`} | ${f1(mib(r.sizeBytes) / r.seconds)} | ${f0(r.idleMiB)} → ${f0(r.peakMiB)} MiB | ${withItems ? `${f0(r.itemsIdleMiB!)} → ${f0(r.itemsPeakMiB!)} MiB | ` : ""}${cpuText(r.cpu)} | ${r.load.before.split(" ")[0]} → ${r.load.after.split(" ")[0]} |`,
    ),
  ].join("\n");
}

function downloadTable(runs: ExportResult[], who: string): string {
  return [
    `| items | format | bytes read | time | MiB/s | what the file holds | ${who} RSS before → peak |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...runs.map((r) => `| ${r.items.toLocaleString("en")} | ${formatName[r.format]} | ${r.download.bytes.toLocaleString("en")} | ${f1(r.download.seconds)} s | ${f0(mib(r.download.bytes) / r.download.seconds)} | ${r.download.check} | ${f0(r.download.idleMiB)} → ${f0(r.download.peakMiB)} MiB |`),
  ].join("\n");
}

function importTable(runs: ImportResult[], embedded = false): string {
  const fetch = (f: { pending: number; fetched: number; failed: number }) => `${f.pending} / ${f.fetched} / ${f.failed}`;
  return [
    `| deployment | library before | host gap | upload answered | parsed | completed | entries/s | created / present / failed | ${embedded ? "process" : "exports"} RSS idle → peak | items RSS idle → peak | fetch pending / done / failed at completion | …` +
      ` ${fetchWatchSeconds} s later | GET /api/items?limit=1 meanwhile p50 / p95 / max | CPU s | load before → after |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...runs.map(
      (r) =>
        `| ${r.deployment} | ${r.library.toLocaleString("en")} | ${r.gapMs ?? importGaps[0]} ms | ${r.uploadSeconds.toFixed(2)} s | ${r.parsedSeconds === null ? "?" : `${f1(r.parsedSeconds)} s`} | ${f1(r.seconds)} s | ${f0(r.entries / r.seconds)} | ${r.created} / ${r.present} / ${r.failed} | ${f0(r.exportsIdleMiB)} → ${f0(r.exportsPeakMiB)} MiB | ${r.itemsIdleMiB === undefined ? "(same process)" : `${f0(r.itemsIdleMiB)} → ${f0(r.itemsPeakMiB!)} MiB`} | ${fetch(r.fetchAtCompletion)} | ${fetch(r.fetchAfterWatch)} | ${r.api ? `${f0(r.api.p50)} / ${f0(r.api.p95)} / ${f0(r.api.max)} ms (n=${r.api.n})` : "-"} | ${cpuText(r.cpu)} | ${r.load.before.split(" ")[0]} → ${r.load.after.split(" ")[0]} |`,
    ),
  ].join("\n");
}

/** What the items and exports processes' connections were doing, on average over the import (idle ones left out). */
function pgLines(runs: ImportResult[]): string {
  const lines = runs
    .filter((r) => r.pgWaits && r.pgWaits.samples > 0)
    .map((r) => {
      const w = r.pgWaits!;
      const per = (name: string) =>
        Object.entries(w.byService[name] ?? {})
          .filter(([label]) => label !== "idle")
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5)
          .map(([label, n]) => `${label} ${(n / w.samples).toFixed(2)}`)
          .join(", ");
      return `- ${r.gapMs} ms gap (${w.samples} samples): items ${per("items") || "-"}; exports ${per("exports") || "-"}`;
    });
  return lines.length === 0
    ? ""
    : `\nPostgreSQL during the import: pg_stat_activity sampled every ${sampleMs} ms, each connection attributed to its process by its client port;
the average number of the process's connections in each state (\`active:<wait event>\` when a running statement waited):\n${lines.join("\n")}\n`;
}

const libraryLine = (l: Library) =>
  `${l.items.toLocaleString("en")} items (${l.withContent.toLocaleString("en")} with content, ${f0(l.contentMiB)} MiB of Markdown by content_size; ${l.notes.toLocaleString("en")} with a note, ${l.highlights.toLocaleString("en")} highlights, ${l.archived.toLocaleString("en")} archived, ${l.inCollections.toLocaleString("en")} in a collection)`;

const blocks: string[] = [];
const ex = results.exports;
if (ex) {
  blocks.push(`### Export jobs, distributed (${ex.date})

Every service its own process (\`startDistributed\`, bench/topology.ts) over PostgreSQL and NATS; the file goes to the NATS
Object Store. ${ex.saved} corpus pages saved through the API in ${f0(ex.saveSeconds)} s (extracted, tagged; a note on every fifth, one to
three highlights on every other; every third put in one of ${collectionNames.length} collections, every seventh archived, every eleventh
flagged), then grown by copying rows in SQL (\`copyToSize\`: tags, collections and highlights copied with each item):
${ex.libraries.map((l) => `- ${libraryLine(l)}`).join("\n")}

One job per format with \`includeContent: true\` (notes included), \`POST /api/exports\` then \`GET /api/exports/:jobId\` every
${pollMs} ms until \`completed\`: the time is from the POST to the poll that saw it completed. The exports process is restarted before each
job, so "idle" is a fresh process and "peak" that job's: the higher of VmRSS sampled every ${sampleMs} ms and VmHWM (reset through
\`/proc/<pid>/clear_refs\` before the job). CPU: user + system seconds of the exports, items and gateway processes, and of
every nats-server and postgres process on the machine (shared with anything else running).

${exportTable(ex.runs, true)}

Download through the gateway (\`GET /api/exports/:jobId/download\`, read to the end by the bench, counting bytes, nothing kept)
right after each job; the gateway's peak measured the same way.

${downloadTable(ex.runs, "gateway")}

${ex.machine}`);
}
const im = results.imports;
if (im) {
  blocks.push(`### Import job, distributed (${im.date})

A generated Netscape bookmark file (Chrome/Firefox shape): ${im.file.entries.toLocaleString("en")} bookmarks, ${(im.file.bytes / 2 ** 20).toFixed(2)} MiB, under the bookmarks bar
(\`PERSONAL_TOOLBAR_FOLDER\`) in ${im.file.folders} nested folders (up to three deep); corpus page titles and made-up ones (some
non-Latin), ADD_DATE over 14 years, TAGS on 40%, a description on 10%, a favicon data URI on 10%; ${im.file.hosts} hosts, a few
holding many bookmarks (Zipf-like); ${im.file.duplicates} entries repeat an earlier URL in another folder and ${im.file.unreadable} are bookmarklets or
\`place:\` queries. Every host ends in \`.invalid\`, which the fetch guard refuses before any lookup (libs/webfetch/guard.ts), so
the background fetches fail at once and nothing leaves the machine. Uploaded as the raw request body
(\`POST /api/imports?format=netscape_html&fileName=bookmarks.html\`) into a fresh deployment (empty library), polled every
${pollMs} ms: "parsed" is when the job first showed its entries, "completed" when its status was \`completed\` (every entry saved,
from the POST). Peaks as for exports (the processes are fresh: the deployment was started for this import).

${importTable(im.runs)}
${pgLines(im.runs)}
Background fetch outcomes (failed or done, at the end): ${im.runs.map((r) => `${r.gapMs} ms gap: ${r.fetchReasons.slice(0, 3).map((x) => `${x.n} × "${x.reason}"`).join("; ")}`).join(". ")} (the most common three).

${im.machine}`);
}
const em = results.embedded;
if (em) {
  blocks.push(`### Embedded (${em.date})

\`bun run start\` on PGlite, one process (its RSS is that of the whole of Trove: every service, the database and the files
written under the data directory's blob store). The library built the same way: ${libraryLine(em.library)}. The process is
restarted before each job; peaks as above; the download is served by the same process.

${exportTable(em.runs, false)}

${downloadTable(em.runs, "process")}
${em.imports.length > 0 ? `\nThe same bookmark file imported into that ${em.library.items.toLocaleString("en")}-item library afterwards:\n\n${importTable(em.imports, true)}\n` : ""}
${em.machine}`);
}

// What the 2026-11-26 run showed (profiles with BENCH_PROFILE, the ZIP writer alone in a scratch script); kept with
// the numbers it explains.
const reading = `### Reading (run of 2026-11-26)

- **Memory, JSON and CSV: bounded.** The exports process goes from a fresh 80 MiB to 212-220 MiB at 10k items and
  243-250 MiB at 100k (ten times the items, 1.2 GB of file: +25-40 MiB); the items process stays 100-150 MiB above
  its idle size at either size. The gateway streams the download in 30-50 MiB over idle, 46 MiB or 1.2 GB alike.
- **Memory, Markdown ZIP: grows with the item count.** 231 MiB at 10k, 822 MiB at 100k (an earlier run the same
  night, under more load (3-8): 649 MiB), about 6-7 KiB of RSS per entry where docs/decisions.md expects "a few hundred
  bytes per entry". The ZIP writer alone (fed 10k and 100k small records, \`Bun.gc(true)\` before \`finish()\`) keeps
  ~0.5 KB per entry live (three objects and one function per entry: archiver's record of each entry for the central
  directory, as expected), but its RSS went from 56 MiB to a 345 MiB peak at 100k and was still 191 MiB after a full
  collection: garbage made per entry that the collector and the allocator hold on to. A million-item ZIP would need
  gigabytes.
- **Time: CPU-bound across processes.** JSON and CSV run at ~620-650 items/s (7-8 MiB/s written) at both sizes, the
  ZIP at 451 then 327 items/s. At 100k (JSON) the exports process used 90 CPU-seconds, items 67, nats-server 14, in
  154 s on 2 cores. Profiles (\`BENCH_PROFILE\`, 10k, JSON): the exports process spends ~30% of its CPU reading the
  items service's replies (zstd, TextDecoder, JSON.parse of 4 MiB pages that travel through the bus's payload
  store), ~25% writing (JSON.stringify, TextEncoder in ByteChannel) and ~25% storing: @nats-io/obj hashes every
  chunk with the pure-JS js-sha256, its default backend (36 MiB/s here against 1 GiB/s for node:crypto;
  \`setSha256Backend("native")\` exists in @nats-io/obj 3.4 and is called neither in libs/blobs nor in libs/bus), plus
  nats-core's buffer packing. The items process spends half its CPU in JSON.stringify of the page and 16% decoding
  pg's text. For the ZIP add \`Buffer.from\` of each file (14%), deflate and the YAML frontmatter.
- **Import: ~50 entries/s, latency-bound.** Parsing the 10k-bookmark file takes about a second; saving takes the
  rest (171 s with the shipped 2 s host gap, 209 s with 0, when the background fetches run beside the saves) in
  little memory (both processes under 180 MiB). The items service saves each entry in its own transaction of about
  ten statements sent one after another, 100 entries per request, one request at a time: its connections were on
  average 1.5 idle in transaction (waiting for the items process between statements), 0.6 running and 0.45 waiting
  for the WAL to be written or flushed (a commit per entry); its CPU profile shows 37% in socket writes (Bun's
  node:net \`writeBuffered\`, one write per query) and ~14% in Kysely compiling queries. The API stays responsive
  meanwhile (GET /api/items?limit=1 p95 66-77 ms).
- **Background fetch.** Every fetch was refused by the guard without a lookup ("dns: cannot resolve ….invalid").
  With the 2 s gap a host is asked once per 2 s, so the 1,138 bookmarks on the busiest host take ~38 minutes to be
  refused; with no gap they are done 30 s after the import, but PostgreSQL used 68 CPU-seconds instead of 22.
- **Embedded.** Exports take 7-15 s at 10k items; the one process goes from 340 MiB to ~680-705 MiB. The import is
  faster (88 entries/s) but stalls the whole API: a GET /api/items sent right after the upload answered 112.5 s
  later, when the import had completed (so did the job's own progress poll: "parsed" equals "completed" there), and
  the process peaked at 1,475 MiB, four times its idle size.`;

const section = `## Exports and imports (${today()})

\`bun run bench:exports\` (bench/exports.ts). Knobs: BENCH_EXPORT_ITEMS (${exportSizes.join(",")}), BENCH_FORMATS
(${formats.join(",")}), BENCH_IMPORT_BOOKMARKS (${importBookmarks}), BENCH_IMPORT_GAP_MS (${importGaps.join(",")}), BENCH_EMBEDDED_ITEMS
(${embeddedItems.join(",")}), BENCH_ONLY (exports,imports,embedded). Parts run on their own keep the others' last results
(BENCH_RESULTS), so each part below carries its own date and machine line. The machine was shared: other test
suites used up to a core during parts of the run; the load columns give the 1-minute load average before and after
each job (this bench's own processes add about 2).

${blocks.join("\n\n")}

${reading}
`;
if (!process.env.BENCH_NO_WRITE && !profileDir) await writeSection("Exports and imports", section);
console.log(section);
