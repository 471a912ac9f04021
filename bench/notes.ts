// `bun run bench:notes`: the notes service through the HTTP API, in the embedded deployment (`bun run start` on
// PGlite, one process) and the distributed one (every service its own process over PostgreSQL + NATS).
//   export    BENCH_NOTES (10,000) notes with realistic bodies (windows of 1-8 KB of the shared corpus's articles,
//             rendered to Markdown by @trove/extract; every tenth archived), all created through the API; then
//             GET /api/notes/export twice: time to the last byte, ZIP size, entries, and the peak RSS of the serving
//             processes (sampled from /proc every 20 ms) against their RSS just before
//   appends   one note: sequential, then 20 parallel writers; across the exported notes: 20 parallel writers, each
//             append to a random note
//   history   the one note, appended to until it has BENCH_REVISIONS (10,000) revisions: GET /api/notes/:id,
//             /read?view=overview, /history (newest page, oldest page), p50/p95; and its rows in notes.revisions
// Writes the `## Notes` section of docs/benchmarks.md. Needs PostgreSQL, NATS and the shared corpus.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { openDatabase } from "@trove/db";
import { extractHtml } from "../libs/extract/index.ts";
import { aliceKey, type Backing, backingServices, dropScratchDatabase } from "@trove/testing";
import { call } from "./api.ts";
import { corpusPages, tagsFor } from "./library.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";
import { type Db, query } from "./sql.ts";
import { startDistributed, startEmbedded, treeOf } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const noteCount = Number(process.env.BENCH_NOTES ?? 10_000);
const revisions = Number(process.env.BENCH_REVISIONS ?? 10_000);
const sequentialAppends = 1_000;
const manyNotesAppends = 2_000;
const writers = 20;
const samples = 200;
const machine = await machineLine();

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const b: Backing = backing;
const troveEnv = { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "warn", TROVE_VALIDATE_RESPONSES: "0" };

// ---- realistic notes ---------------------------------------------------------------------------------------

const sources = corpusPages(60)
  .map((p) => {
    try {
      return extractHtml(p.html, { url: p.url }).markdown;
    } catch {
      return "";
    }
  })
  .filter((m) => m.length > 4000)
  .map((m) => m.split("\n"));
if (sources.length === 0) throw new Error("no corpus page gave Markdown");

/** Note i: a window of 1-8 KB of one article's Markdown, its first heading (or line) as the title. */
function noteSpec(i: number) {
  const lines = sources[i % sources.length]!;
  const target = 1024 + (Math.imul(i + 1, 2654435761) >>> 0) % 7168;
  const out: string[] = [];
  let bytes = 0;
  for (let k = (i * 97) % lines.length; bytes < target; k = (k + 1) % lines.length) {
    out.push(lines[k]!);
    bytes += Buffer.byteLength(lines[k]!) + 1;
  }
  const heading = out.find((l) => /^#{1,6} \S/.test(l))?.replace(/^#+ /, "") ?? out.find((l) => l.trim())?.slice(0, 80) ?? "";
  return {
    title: `${heading.slice(0, 200) || "Notes"} (${i})`,
    bodyMarkdown: out.join("\n"),
    tags: tagsFor(i),
    kind: ["log", "decision", "plan", "reference"][i % 4],
    state: ["draft", "active", "done"][i % 3],
    paths: i % 3 === 0 ? [`src/module-${i % 17}/`, "docs/"] : [],
    properties: i % 5 === 0 ? { description: `note ${i} of the bench`, priority: i % 4 } : {},
  };
}

const appendText = (k: number) => `- ${new Date(1_780_000_000_000 + k * 60_000).toISOString()} step ${k}: checked the parser path, noted the result and the next step.\n`;

/** Runs task(0..total-1) on `n` workers; seconds taken. */
async function parallel(n: number, total: number, task: (k: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    for (let k = next++; k < total; k = next++) await task(k);
  }));
  return (performance.now() - started) / 1000;
}

/** Milliseconds of `samples` sequential GETs, sorted. */
async function latencies(base: string, path: string): Promise<{ p50: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${aliceKey}` } });
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    bytes = body.byteLength;
  }
  times.sort((x, y) => x - y);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), bytes };
}

// ---- memory --------------------------------------------------------------------------------------------------

/** Resident set (MiB) of the processes and their descendants, from /proc. */
function rssMiB(roots: number[]): number {
  let kb = 0;
  for (const pid of roots.flatMap(treeOf)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kb / 1024;
}

/** Samples RSS every 20 ms until stop(); the peak seen. */
function sampleRss(roots: number[]) {
  let peak = rssMiB(roots);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(roots))), 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMiB(roots));
  };
}

// ---- one deployment ------------------------------------------------------------------------------------------

interface ExportRun {
  seconds: number;
  firstByte: number;
  mib: number;
  entries: number;
  rssBefore: number;
  rssPeak: number;
}

interface Measured {
  createSeconds: number;
  markdownMiB: number;
  exports: ExportRun[];
  appends: { sequential: number; parallelOne: number; parallelMany: number };
  reads: Record<"note" | "overview" | "historyNewest" | "historyOldest", { p50: number; p95: number; bytes: number }>;
  bodyKiB: number;
  noteId: string;
  table?: { rows: number; full: number; storedMiB: number; rowMiB: number; tableMiB: number };
}

async function exportOnce(base: string, roots: number[]): Promise<ExportRun> {
  const rssBefore = rssMiB(roots);
  const stop = sampleRss(roots);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/notes/export`, { headers: { authorization: `Bearer ${aliceKey}` } });
  const firstByte = (performance.now() - t0) / 1000;
  if (!res.ok) throw new Error(`export: ${res.status} ${await res.text()}`);
  const chunks: Uint8Array[] = [];
  for await (const c of res.body!) chunks.push(c);
  const seconds = (performance.now() - t0) / 1000;
  const rssPeak = stop();
  const zip = Buffer.concat(chunks);
  let entries = 0;
  unzipSync(zip, {
    filter: () => {
      entries++;
      return false;
    },
  });
  return { seconds, firstByte, mib: zip.length / 2 ** 20, entries, rssBefore, rssPeak };
}

async function measure(name: string, base: string, roots: () => number[]): Promise<Measured> {
  // Notes, through the API; every tenth archived.
  let markdown = 0;
  const ids: string[] = new Array(noteCount);
  const createSeconds = await parallel(8, noteCount, async (i) => {
    const spec = noteSpec(i);
    markdown += Buffer.byteLength(spec.bodyMarkdown);
    const r = await call(base, "POST", "/api/notes", spec);
    ids[i] = r.note.id;
    if (i % 10 === 0) await call(base, "POST", `/api/notes/${r.note.id}/archive`, { expectedRevision: 1 });
  });
  console.log(`${name}: ${noteCount} notes (${(markdown / 2 ** 20).toFixed(1)} MiB of Markdown) created in ${createSeconds.toFixed(1)} s`);

  const exports: ExportRun[] = [];
  for (let k = 0; k < 2; k++) {
    const run = await exportOnce(base, roots());
    if (run.entries !== noteCount) throw new Error(`the export held ${run.entries} files, not ${noteCount}`);
    exports.push(run);
    console.log(`${name}: export ${run.seconds.toFixed(1)} s (first byte ${run.firstByte.toFixed(1)} s), ${run.mib.toFixed(1)} MiB, RSS ${run.rssBefore.toFixed(0)} -> peak ${run.rssPeak.toFixed(0)} MiB`);
  }

  // Appends to one note: sequential, then 20 writers until it has `revisions` revisions.
  const noteId = (await call(base, "POST", "/api/notes", { title: "Work log", bodyMarkdown: "# Work log\n\n", kind: "log" })).note.id as string;
  let k = 0;
  const seq = await parallel(1, sequentialAppends, async () => void (await call(base, "POST", `/api/notes/${noteId}/append`, { bodyMarkdown: appendText(k++) })));
  const rest = revisions - 1 - sequentialAppends;
  const par = await parallel(writers, rest, async () => void (await call(base, "POST", `/api/notes/${noteId}/append`, { bodyMarkdown: appendText(k++) })));
  const many = await parallel(writers, manyNotesAppends, async () => {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    await call(base, "POST", `/api/notes/${id}/append`, { bodyMarkdown: appendText(k++) });
  });
  const appends = { sequential: sequentialAppends / seq, parallelOne: rest / par, parallelMany: manyNotesAppends / many };
  console.log(`${name}: appends/s one note ${appends.sequential.toFixed(0)} sequential, ${appends.parallelOne.toFixed(0)} with ${writers} writers; many notes ${appends.parallelMany.toFixed(0)}`);

  const { note } = await call(base, "GET", `/api/notes/${noteId}`);
  if (note.currentRevision !== revisions) throw new Error(`the log note is at revision ${note.currentRevision}, not ${revisions}`);
  const reads = {
    note: await latencies(base, `/api/notes/${noteId}`),
    overview: await latencies(base, `/api/notes/${noteId}/read?view=overview`),
    historyNewest: await latencies(base, `/api/notes/${noteId}/history?limit=50`),
    historyOldest: await latencies(base, `/api/notes/${noteId}/history?limit=50&offset=${revisions - 50}`),
  };
  console.log(`${name}: note of ${revisions} revisions: GET p95 ${reads.note.p95.toFixed(1)} ms, overview p95 ${reads.overview.p95.toFixed(1)} ms, history p95 ${reads.historyNewest.p95.toFixed(1)} / ${reads.historyOldest.p95.toFixed(1)} ms`);
  return { createSeconds, markdownMiB: markdown / 2 ** 20, exports, appends, reads, bodyKiB: note.bytes / 1024, noteId };
}

async function tableOf(db: Db, noteId: string): Promise<NonNullable<Measured["table"]>> {
  const [r] = await query<{ rows: number; full: number; stored: number; row: number; table: number }>(
    db,
    `select count(*)::int as rows, count(*) filter (where storage = 'full')::int as full,
       coalesce(sum(octet_length(body)), 0)::int8 as stored, coalesce(sum(pg_column_size(r.*)), 0)::int8 as row,
       pg_total_relation_size('notes.revisions')::int8 as table
     from notes.revisions r where note_id = $1`,
    [noteId],
  );
  const mib = (x: unknown) => Number(x) / 2 ** 20;
  return { rows: r!.rows, full: r!.full, storedMiB: mib(r!.stored), rowMiB: mib(r!.row), tableMiB: mib(r!.table) };
}

const results: Partial<Record<"embedded" | "distributed", Measured>> = {};
try {
  // Embedded: bun run start on PGlite; the revisions table is read once it has stopped (PGlite is one process's).
  {
    const embedded = await startEmbedded(b, troveEnv, "notes");
    try {
      const m = await measure("embedded", embedded.url, () => [embedded.pid()]);
      m.table = await embedded.paused(async () => {
        const database = await openDatabase({ dataDir: embedded.dataDir });
        try {
          return await tableOf(database.db, m.noteId);
        } finally {
          await database.close();
        }
      });
      results.embedded = m;
    } finally {
      await embedded.stop();
    }
  }
  // Distributed: every service its own process; the export's memory is the notes process's and the gateway's.
  {
    const topo = await startDistributed({ ...b, prefix: `${b.prefix}n` }, troveEnv);
    try {
      const m = await measure("distributed", topo.url, () => [topo.procs.get("notes")!.pid, topo.procs.get("gateway")!.pid]);
      const database = await openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 });
      try {
        m.table = await tableOf(database.db, m.noteId);
      } finally {
        await database.close();
      }
      results.distributed = m;
    } finally {
      await topo.stop();
    }
  }
} finally {
  await b.stop();
  await dropScratchDatabase(b.databaseUrl).catch(() => {});
}

const ms = (x: { p50: number; p95: number }) => `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)} ms`;
const rows = (fn: (name: "embedded" | "distributed", r: Measured) => string) =>
  (["embedded", "distributed"] as const)
    .filter((n) => results[n])
    .map((n) => fn(n, results[n]!))
    .join("\n");
const section = `## Notes (${today()})

\`bun run bench:notes\`. ${noteCount.toLocaleString("en")} notes created through the API (${results.embedded?.markdownMiB.toFixed(1) ?? "?"} MiB of Markdown: windows of
1-8 KB of ${sources.length} corpus articles rendered by @trove/extract, with tags, kind, state and some paths and properties; every tenth
archived). Embedded: \`bun run start\` on PGlite, one process; distributed: every service its own process over PostgreSQL
and NATS, the RSS being that of the notes and gateway processes together.

Export (\`GET /api/notes/export\`, read to the last byte; two runs one after the other). RSS sampled every 20 ms from /proc.

| deployment | notes created in | export (first / second) | first byte | ZIP | RSS before → peak |
| --- | --- | --- | --- | --- | --- |
${rows((n, r) => `| ${n} | ${r.createSeconds.toFixed(0)} s | ${r.exports.map((e) => `${e.seconds.toFixed(1)} s`).join(" / ")} | ${r.exports.map((e) => `${e.firstByte.toFixed(1)} s`).join(" / ")} | ${r.exports[0]!.mib.toFixed(1)} MiB, ${r.exports[0]!.entries} files | ${r.exports.map((e) => `${e.rssBefore.toFixed(0)} → ${e.rssPeak.toFixed(0)} MiB`).join("; ")} |`)}

Appends per second (\`POST /api/notes/:id/append\`, ~110 bytes each): one note, sequential (${sequentialAppends.toLocaleString("en")}) and ${writers} parallel
writers (until the note has ${revisions.toLocaleString("en")} revisions); ${writers} parallel writers each appending to a random one of the
${noteCount.toLocaleString("en")} notes (${manyNotesAppends.toLocaleString("en")}).

| deployment | one note, sequential | one note, ${writers} writers | many notes, ${writers} writers |
| --- | --- | --- | --- |
${rows((n, r) => `| ${n} | ${r.appends.sequential.toFixed(0)} | ${r.appends.parallelOne.toFixed(0)} | ${r.appends.parallelMany.toFixed(0)} |`)}

A note with ${revisions.toLocaleString("en")} revisions (${results.embedded?.bodyKiB.toFixed(0) ?? "?"} KiB of body): p50 / p95 of ${samples} sequential requests each; and its rows in
notes.revisions: how many (how many hold a full snapshot), the body text they hold, and their size as stored
(\`pg_column_size\`, after TOAST compression); the table holds every note's revisions.

| deployment | GET /api/notes/:id | read?view=overview | history, newest 50 | history, oldest 50 | revisions rows (full) | body text / stored | notes.revisions table |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows((n, r) => `| ${n} | ${ms(r.reads.note)} | ${ms(r.reads.overview)} | ${ms(r.reads.historyNewest)} | ${ms(r.reads.historyOldest)} | ${r.table!.rows} (${r.table!.full}) | ${r.table!.storedMiB.toFixed(1)} / ${r.table!.rowMiB.toFixed(1)} MiB | ${r.table!.tableMiB.toFixed(0)} MiB |`)}

Reading: the export's first byte comes when the whole ZIP is in the blob store (the reply names the blob), so
time to first byte is nearly all of it; the gateway then streams the blob. Note bodies are read a batch of at most
4 MiB at a time and the next batch waits until archiver has written the last one out, so no more than one batch is
held; what does grow with the number of notes is archiver's record of every entry for the ZIP's central directory
(written last; a few KB per entry in compress-commons) and, between collections, the garbage of each batch. The
rise is larger on PGlite, whose reads make more garbage than the pg driver's; measured in one process with 20,000
notes, the live heap after a full collection grew by under 10 MiB during the export, and RSS was back to where it
started once the export was done.

${machine}
`;
await writeSection("Notes", section);
console.log(section);
