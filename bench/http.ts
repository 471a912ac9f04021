// `bun run bench`: HTTP throughput and latency in one run on this machine, with wrk (50 connections, 2 threads):
// (a) a bare Elysia JSON endpoint, (b) Elysia -> NATS request-reply echo, (c) GET /api/items/{id} embedded
// (PGlite + in-process bus) and distributed (every service its own process over NATS and PostgreSQL).
// Writes the `## HTTP` section of docs/benchmarks.md. Needs wrk (apt-get install wrk), PostgreSQL and NATS.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import {
  aliceKey,
  backingServices,
  freePort,
  launchDistributed,
  processEnv,
  repoRoot,
  waitForHealth,
  type Backing,
} from "@trove/testing";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;

interface Result {
  name: string;
  rps: number;
  p50: string;
  p99: string;
  errors: string;
}

function wrk(name: string, url: string, headers: string[] = [], script?: string): Result {
  Bun.spawnSync(["wrk", "-t2", "-c10", "-d2s", ...headers.flatMap((h) => ["-H", h]), url]); // warm-up
  const extra = script ? ["-s", join(repoRoot, "bench", script)] : [];
  const out = Bun.spawnSync(["wrk", "-t2", `-c${connections}`, `-d${seconds}s`, "--latency", ...extra, ...headers.flatMap((h) => ["-H", h]), url]);
  const text = out.stdout.toString();
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? "?";
  const p99 = /^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? "?";
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1];
  const sockErr = /Socket errors:.*/.exec(text)?.[0];
  const result = { name, rps, p50, p99, errors: [non2xx && `${non2xx} non-2xx`, sockErr].filter(Boolean).join("; ") || "none" };
  console.log(`${name}: ${rps.toFixed(0)} req/s, p50 ${p50}, p99 ${p99}, errors: ${result.errors}`);
  return result;
}

async function waitHttp(url: string) {
  for (let i = 0; i < 300; i++) {
    if (await fetch(url).then(() => true, () => false)) return;
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

async function stopAll(procs: Subprocess[]) {
  for (const p of procs) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
}

async function saveOne(url: string): Promise<string> {
  const res = await fetch(`${url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://bench.example.test/article" }),
  });
  return ((await res.json()) as { id: string }).id;
}

const backing = await backingServices();
if ("skip" in backing) throw new Error(`bench needs PostgreSQL and NATS: ${backing.skip}`);
const b: Backing = backing;
const auth = [`Authorization: Bearer ${aliceKey}`];
const results: Result[] = [];
const envBase = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NATS_URL: b.natsUrl, TROVE_BUS_PREFIX: b.prefix };

try {
  // (a) bare Elysia
  {
    const port = await freePort();
    const proc = Bun.spawn(["bun", "run", "bench/servers.ts", "bare", String(port)], { cwd: repoRoot, env: envBase, stdout: "ignore" });
    await waitHttp(`http://127.0.0.1:${port}/json`);
    results.push(wrk("(a) bare Elysia JSON", `http://127.0.0.1:${port}/json`));
    await stopAll([proc]);
  }
  // (b0) bare Elysia -> NATS -> echo service (the floor of any HTTP -> NATS round trip)
  {
    const port = await freePort();
    const svc = Bun.spawn(["bun", "run", "bench/servers.ts", "echo-service"], { cwd: repoRoot, env: envBase, stdout: "ignore" });
    const gw = Bun.spawn(["bun", "run", "bench/servers.ts", "echo-gateway", String(port)], { cwd: repoRoot, env: envBase, stdout: "ignore" });
    await waitHttp(`http://127.0.0.1:${port}/echo`);
    results.push(wrk("(b0) bare Elysia -> NATS echo", `http://127.0.0.1:${port}/echo`));
    await stopAll([gw, svc]);
  }
  // (c1) embedded: bun run start on PGlite + in-process bus
  {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "trove-bench-"));
    const env = processEnv(b, port, { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "info", TROVE_VALIDATE_RESPONSES: "0" });
    delete (env as Record<string, string | undefined>).DATABASE_URL;
    delete (env as Record<string, string | undefined>).NATS_URL;
    const proc = Bun.spawn(["bun", "run", "start"], { cwd: repoRoot, env: { ...env, TROVE_DATA_DIR: dataDir }, stdout: "ignore" });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url);
    const id = await saveOne(url);
    results.push(wrk("(c) GET /api/items/{id} embedded", `${url}/api/items/${id}`, auth));
    await stopAll([proc]);
    rmSync(dataDir, { recursive: true, force: true });
  }
  // (c2) distributed: every service its own process over NATS + PostgreSQL
  {
    const topo = await launchDistributed({ ...b, prefix: `${b.prefix}d` }, { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: "info", TROVE_VALIDATE_RESPONSES: "0" });
    const id = await saveOne(topo.url);
    results.push(wrk("(b) GET /api/ping: Trove gateway -> NATS echo (items)", `${topo.url}/api/ping`, auth));
    results.push(wrk("(c) GET /api/items/{id} distributed", `${topo.url}/api/items/${id}`, auth));
    results.push(wrk("(c') same, 10 ms think time per connection (not saturated)", `${topo.url}/api/items/${id}`, auth, "think.lua"));
    await topo.stop();
  }
} finally {
  await b.stop();
}

const cpu = /model name\s*:\s*(.*)/.exec(await Bun.file("/proc/cpuinfo").text())?.[1] ?? "unknown cpu";
const memGiB = Math.round(Number(/MemTotal:\s+(\d+)/.exec(await Bun.file("/proc/meminfo").text())?.[1] ?? 0) / 1024 / 1024);
const echo = results.find((r) => r.name.startsWith("(b)"))!;
const bare = results.find((r) => r.name.startsWith("(b0)"))!;
const dist = results.find((r) => r.name.endsWith("distributed"))!;
const calm = results.find((r) => r.name.startsWith("(c')"))!;
const section = [
  "## HTTP",
  "",
  `Measured ${new Date().toISOString().slice(0, 10)} on ${navigator.hardwareConcurrency} cores (${cpu}), ${memGiB} GiB, Bun ${Bun.version},`,
  `PostgreSQL 15 and nats-server 2.9 on the same machine; wrk 4.1 with 2 threads and ${connections} connections for ${seconds} s`,
  "after a 2 s warm-up, sharing the 2 cores with the servers. Command: `bun run bench`. Trove runs with `LOG_LEVEL=info`",
  "(one access line per request) and the rate limit raised out of the way.",
  "",
  "| scenario | requests/s | p50 | p99 | errors |",
  "|---|---:|---:|---:|---|",
  ...results.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |`),
  "",
  `Distributed item read vs the gateway -> bus echo (b): ${((dist.rps / echo.rps) * 100).toFixed(0)} % (target at least 50 %); vs the bare`,
  `Elysia -> NATS echo (b0): ${((dist.rps / bare.rps) * 100).toFixed(0)} %. Distributed p99 ${dist.p99} at saturation, ${calm.p99} with`,
  `think time (target at most 10 ms at 50 connections).`,
  "",
].join("\n");
const file = join(repoRoot, "docs", "benchmarks.md");
const current = await Bun.file(file).text().catch(() => "# Benchmarks\n\n");
const re = /## HTTP\n[\s\S]*?(?=\n## |$)/;
await Bun.write(file, re.test(current) ? current.replace(re, section.trimEnd() + "\n") : `${current.trimEnd()}\n\n${section}`);
console.log(section);
