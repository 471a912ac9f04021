// Where the CPU goes on a read in the distributed topology: CPU microseconds per request for each process (gateway,
// items, the PostgreSQL backends serving this run's database, nats-server), read from /proc before and after a wrk run.
//   bun run bench/cpu-split.ts [item|list|content]
// item: GET /api/items/{id} of a highlighted item of median size; list: GET /api/items?limit=50; content: the same
// page with include=content. The library is BENCH_SAVES (60) corpus pages saved through the API (bench/library.ts).
// nats-server is shared with anything else using it on the machine, so its figure is an upper bound.
import { openDatabase } from "@trove/db";
import { aliceKey, backingServices, dropScratchDatabase, type Backing } from "@trove/testing";
import { corpusPages, loadThroughApi, typicalItem } from "./library.ts";
import { query } from "./sql.ts";
import { cpuByPid, cpuSince, natsServerPids, startDistributed, treeOf } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const scenario = process.argv[2] ?? "item";
if (!["item", "list", "content"].includes(scenario)) throw new Error("usage: cpu-split.ts [item|list|content]");

const backing = await backingServices();
if ("skip" in backing) throw new Error(backing.skip);
const b: Backing = backing;
const topo = await startDistributed({ ...b, prefix: `${b.prefix}cpu` }, { TROVE_RATE_LIMIT: "100000000", LOG_LEVEL: process.env.LOG_LEVEL ?? "info", TROVE_VALIDATE_RESPONSES: "0", TROVE_INGEST_WAIT_MS: "60000" });
const database = await openDatabase({ databaseUrl: b.databaseUrl, poolSize: 1 });
try {
  const loaded = await loadThroughApi(topo.url, corpusPages(Number(process.env.BENCH_SAVES ?? 60)));
  const url =
    scenario === "item"
      ? `${topo.url}/api/items/${typicalItem(loaded.items).id}`
      : `${topo.url}/api/items?limit=50${scenario === "content" ? "&include=content" : ""}`;
  const connections = scenario === "content" ? 10 : 50;
  Bun.spawnSync(["wrk", "-t1", "-c10", "-d2s", "--timeout", "30s", "-H", `Authorization: Bearer ${aliceKey}`, url]);
  // The backends of this run's database (the services' pools are open after the warm-up), not other users'.
  const backends = await query<{ pid: number }>(database.db, "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
  const groups = {
    gateway: treeOf(topo.procs.get("gateway")!.pid),
    items: treeOf(topo.procs.get("items")!.pid),
    postgres: backends.map((r) => r.pid),
    nats: natsServerPids(),
  };
  const before = Object.entries(groups).map(([k, pids]) => [k, cpuByPid(pids)] as const);
  const out = Bun.spawnSync(["wrk", "-t2", `-c${connections}`, "-d8s", "--timeout", "30s", "--latency", "-H", `Authorization: Bearer ${aliceKey}`, url]).stdout.toString();
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 1);
  console.log(`${scenario}: ${url.replace(topo.url, "")}, ${connections} connections`);
  console.log(out.split("\n").filter((l) => /Req\/Sec|Requests\/sec|99%|50%/.test(l)).join("\n"));
  for (const [k, used] of before) console.log(`${k.padEnd(9)} ${(cpuSince(used) / requests).toFixed(0)} µs CPU per request`);
} finally {
  await database.close();
  await topo.stop();
  await b.stop();
  await dropScratchDatabase(b.databaseUrl).catch(() => {});
}
