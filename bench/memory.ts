// `bun run bench:memory`: what Trove's embedded default costs a small machine. `bun run start` on a fresh data
// directory, its whole process group's resident memory read from /proc every 100 ms: the first start (until health
// answers, and its peak), the idle footprint with an empty library, the peak while saving pages of the shared corpus
// through POST /api/ingest with `html` (four at a time) and the ingest throughput, the idle footprint 60 s after,
// then a stop and a second start on the same directory. Knobs: BENCH_SAVES (300), BENCH_IDLE_S (30, the settle time
// before an idle reading), BENCH_AFTER_S (60), BENCH_RUNS (1), BENCH_ENV (extra variables for Trove, as
// `A=1,B=2`: for comparing settings), BENCH_WRITE (1: write the section of docs/benchmarks.md).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aliceKey, repoRoot } from "@trove/testing";
import { corpusPages } from "./library.ts";
import { machineLine, today, writeSection } from "./report.ts";

const saves = Number(process.env.BENCH_SAVES ?? 300);
const idleS = Number(process.env.BENCH_IDLE_S ?? 30);
const afterS = Number(process.env.BENCH_AFTER_S ?? 60);
const runs = Number(process.env.BENCH_RUNS ?? 1);
const extraEnv = Object.fromEntries(
  (process.env.BENCH_ENV ?? "").split(",").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
);
const pageSize = 4096;

/** Resident bytes of every process in the group `pgid` (the start script, Trove, anything it started). */
function groupRss(pgid: number): number {
  let total = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces: state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const pages = Number(readFileSync(`/proc/${name}/statm`, "utf8").split(" ")[1]);
      total += pages * pageSize;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** Samples a group's memory every 100 ms; `peak()` since the last `reset()`. */
class Sampler {
  private max = 0;
  private timer: ReturnType<typeof setInterval>;
  constructor(private readonly pgid: number) {
    this.timer = setInterval(() => this.sample(), 100);
  }
  sample(): number {
    const now = groupRss(this.pgid);
    this.max = Math.max(this.max, now);
    return now;
  }
  peak(): number {
    this.sample();
    return this.max;
  }
  reset(): void {
    this.max = 0;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

interface Started {
  child: ChildProcess;
  sampler: Sampler;
  healthyMs: number;
  base: string;
}

async function start(dataDir: string, port: number): Promise<Started> {
  const began = performance.now();
  const child = spawn("bun", ["run", "start"], {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      PORT: String(port),
      TROVE_DATA_DIR: dataDir,
      TROVE_ADMIN_PORT: "off",
      TROVE_SMTP_PORT: "0",
      LOG_LEVEL: "warn",
      TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "alice@example.com", apiKey: aliceKey, linkLimit: 1_000_000 }]),
      ...extraEnv,
    },
  });
  const sampler = new Sampler(child.pid!);
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`trove exited with ${child.exitCode} before it was healthy`);
    const ok = await fetch(`${base}/api/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await sleep(20);
  }
  return { child, sampler, healthyMs: performance.now() - began, base };
}

async function stop(s: Started): Promise<void> {
  const exited = new Promise((r) => s.child.once("exit", r));
  process.kill(-s.child.pid!, "SIGTERM");
  await exited;
  s.sampler.stop();
}

/** The group's memory after `seconds` of quiet: the mean of the last five seconds' readings. */
async function idle(s: Started, seconds: number): Promise<number> {
  await sleep(Math.max(0, seconds - 5) * 1000);
  const readings: number[] = [];
  for (let i = 0; i < 10; i++) {
    readings.push(s.sampler.sample());
    await sleep(500);
  }
  return readings.reduce((a, b) => a + b, 0) / readings.length;
}

async function save(base: string, pages: { url: string; html: string }[], concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < pages.length; i = next++) {
      const page = pages[i]!;
      const res = await fetch(`${base}/api/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
        body: JSON.stringify({ url: page.url, html: page.html, source: "bench" }),
      });
      if (!res.ok) throw new Error(`POST /api/ingest ${page.url}: ${res.status} ${(await res.text()).slice(0, 200)}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return pages.length / ((performance.now() - started) / 1000);
}

interface Run {
  firstHealthyS: number;
  firstPeakMb: number;
  idleMb: number;
  savePeakMb: number;
  pagesPerS: number;
  afterMb: number;
  secondHealthyS: number;
  secondIdleMb: number;
}

async function once(pages: { url: string; html: string }[]): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), "trove-bench-memory-"));
  const port = await freePort();
  try {
    const first = await start(dataDir, port);
    const firstHealthyS = first.healthyMs / 1000;
    const idleMb = mb(await idle(first, idleS));
    const firstPeakMb = mb(first.sampler.peak());
    first.sampler.reset();
    const pagesPerS = await save(first.base, pages, 4);
    const savePeakMb = mb(first.sampler.peak());
    const afterMb = mb(await idle(first, afterS));
    await stop(first);
    const second = await start(dataDir, port);
    const secondIdleMb = mb(await idle(second, idleS));
    await stop(second);
    return { firstHealthyS, firstPeakMb, idleMb, savePeakMb, pagesPerS, afterMb, secondHealthyS: second.healthyMs / 1000, secondIdleMb };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const machine = await machineLine();
const pages = corpusPages(saves);
console.log(`${pages.length} corpus pages; ${runs} run(s); extra env: ${JSON.stringify(extraEnv)}`);
const results: Run[] = [];
for (let r = 0; r < runs; r++) {
  const run = await once(pages);
  console.log(JSON.stringify(run));
  results.push(run);
}

const span = (pick: (r: Run) => number, digits = 0) => {
  const values = results.map(pick);
  const lo = Math.min(...values).toFixed(digits);
  const hi = Math.max(...values).toFixed(digits);
  return lo === hi ? lo : `${lo}-${hi}`;
};
const table = [
  "| | measured | goal |",
  "|---|---:|---:|",
  `| first start: healthy after | ${span((r) => r.firstHealthyS, 1)} s | <= 3 s |`,
  `| first start: peak memory | ${span((r) => r.firstPeakMb)} MB | <= 300 MB |`,
  `| idle after the first start, empty library | ${span((r) => r.idleMb)} MB | <= 150 MB |`,
  `| peak while saving ${pages.length} pages | ${span((r) => r.savePeakMb)} MB | <= 500 MB |`,
  `| ingest throughput while saving them | ${span((r) => r.pagesPerS, 1)} pages/s | |`,
  `| idle ${afterS} s after saving them | ${span((r) => r.afterMb)} MB | <= 250 MB |`,
  `| second start: healthy after / idle | ${span((r) => r.secondHealthyS, 1)} s / ${span((r) => r.secondIdleMb)} MB | <= 3 s / <= 150 MB |`,
].join("\n");
console.log(table);

if (process.env.BENCH_WRITE === "1") {
  await writeSection(
    `Memory and start on a small machine (${today()})`,
    [
      `## Memory and start on a small machine (${today()})`,
      "",
      machine,
      "",
      `\`bun run bench:memory\`: \`bun run start\` on a fresh data directory; the resident memory of its whole process group, read from`,
      `\`/proc\` every 100 ms; idle readings are the mean of the last 5 s of ${idleS} s of quiet (${afterS} s after the saves).`,
      `${pages.length} pages of the shared corpus saved through \`POST /api/ingest\` with \`html\`, four at a time. ${runs} run(s);`,
      `where runs differ the table gives the range.${Object.keys(extraEnv).length ? ` Extra settings: \`${process.env.BENCH_ENV}\`.` : ""}`,
      "",
      table,
    ].join("\n"),
  );
}
