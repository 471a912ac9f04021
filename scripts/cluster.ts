// `bun run cluster [--replicas N] [--port P] [--admin-port-base A]`: the distributed topology on this machine for
// development, as the Kubernetes manifests run it (libs/cluster): NATS with deploy/nats/nats.conf, every service N
// times, the gateways behind a round-robin proxy on P (default PORT or 8080), admin ports from A (default 9464) up.
// Needs DATABASE_URL (PostgreSQL) and nats-server (TROVE_NATS_SERVER, PATH or /usr/sbin). Ctrl-C stops it all.
import { parseArgs } from "node:util";
import { launchCluster, natsServerBinary } from "@trove/cluster";

const { values } = parseArgs({
  options: { replicas: { type: "string", default: "2" }, port: { type: "string" }, "admin-port-base": { type: "string", default: "9464" } },
});
const fail = (message: string): never => {
  console.error(`cluster: ${message}`);
  process.exit(2);
};
const whole = (name: string, raw: string, min: number, max: number) => {
  const n = Number(raw);
  return Number.isInteger(n) && n >= min && n <= max ? n : fail(`--${name} must be a whole number from ${min} to ${max}, got ${raw}`);
};
const replicas = whole("replicas", values.replicas, 1, 16);
const port = whole("port", values.port ?? process.env.PORT ?? "8080", 1, 65535);
const adminPortBase = whole("admin-port-base", values["admin-port-base"], 1, 65535 - 6 * replicas);
const databaseUrl = process.env.DATABASE_URL ?? fail("set DATABASE_URL to a PostgreSQL database (with pgvector and pg_trgm available)");
if (!natsServerBinary()) fail("nats-server is not installed: install it, or set TROVE_NATS_SERVER to its path");

// Everything of this shell passes on (TROVE_SEED_ACCOUNTS, LOG_LEVEL...), except what the cluster sets per process.
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(NATS_|PORT$|HOST$)/.test(e[0])));
const cluster = await launchCluster({ databaseUrl, replicas, port, adminPortBase, env });
console.log(`\nTrove cluster: ${replicas} of every service, gateways behind ${cluster.url}; NATS at ${cluster.nats.url}`);
for (const p of cluster.processes.values()) console.log(`  ${p.name.padEnd(12)} admin ${p.adminUrl}${p.url ? `  http ${p.url}` : ""}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("stopping the cluster");
  await cluster.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
