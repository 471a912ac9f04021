// Where the CPU goes on GET /api/items/{id} in the distributed topology: CPU microseconds per request for
// each process (gateway, items, PostgreSQL backends, nats-server), read from /proc before and after a wrk run.
import { aliceKey, backingServices, launchDistributed, type Backing } from "@trove/testing";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const ticks = 100; // USER_HZ

function cpuOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const f = require("node:fs").readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      total += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return (total / ticks) * 1e6;
}
const pidsOf = (name: string) =>
  Bun.spawnSync(["pgrep", "-f", name]).stdout.toString().trim().split("\n").filter(Boolean).map(Number);

const backing = await backingServices();
if ("skip" in backing) throw new Error(backing.skip);
const b: Backing = backing;
const topo = await launchDistributed({ ...b, prefix: `${b.prefix}cpu` }, { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: process.env.LOG_LEVEL ?? "info", TROVE_VALIDATE_RESPONSES: "0" });
try {
  const res = await fetch(`${topo.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://cpu.example.test/", html: "<article><h1>T</h1><p>Some words here for the body.</p></article>" }),
  });
  const id = ((await res.json()) as { id: string }).id;
  const url = `${topo.url}/api/items/${id}`;
  Bun.spawnSync(["wrk", "-t1", "-c10", "-d2s", "-H", `Authorization: Bearer ${aliceKey}`, url]);
  const groups: Record<string, number[]> = {
    gateway: [topo.procs.get("gateway")!.pid],
    items: [topo.procs.get("items")!.pid],
    postgres: pidsOf("postgres:"),
    nats: pidsOf("nats-server"),
  };
  const before = Object.fromEntries(Object.entries(groups).map(([k, p]) => [k, cpuOf(p)]));
  const out = Bun.spawnSync(["wrk", "-t2", "-c50", "-d8s", "--latency", "-H", `Authorization: Bearer ${aliceKey}`, url]).stdout.toString();
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 1);
  console.log(out.split("\n").filter((l) => /Req\/Sec|Requests\/sec|99%|50%/.test(l)).join("\n"));
  for (const [k, p] of Object.entries(groups)) console.log(`${k.padEnd(9)} ${((cpuOf(p) - before[k]!) / requests).toFixed(0)} µs CPU per request`);
} finally {
  await topo.stop();
  await b.stop();
}
