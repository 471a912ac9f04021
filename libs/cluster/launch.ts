// The distributed topology on one machine, as the Kubernetes manifests run it: NATS with the deploy configuration
// (a user per service), every service `replicas` times as its own process, the gateways behind a round-robin
// proxy, each process with its own admin port (/healthz, /readyz, /metrics). For development (`bun run cluster`)
// and the tests that need every service twice.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { natsConfigPath, natsUsers, passwordVariable, repoRoot, startNatsServer, type NatsServer, type NatsUser } from "./nats-server.ts";
import { freePort } from "./ports.ts";
import { startRoundRobin, type RoundRobin } from "./proxy.ts";

/** In start order: a service's first replica runs its migrations before the gateway says the whole is healthy. */
export const clusterServices = ["items", "notes", "sources", "delivery", "exports", "gateway"] as const;
export type ClusterService = (typeof clusterServices)[number];

export interface ClusterOptions {
  databaseUrl: string;
  /** Processes per service (default 2). */
  replicas?: number;
  /** The proxy's port (default: a free one). */
  port?: number;
  /** Admin ports from here up, one per process in start order (default: free ones). */
  adminPortBase?: number;
  /** Further environment for every process (TROVE_SEED_ACCOUNTS, LOG_LEVEL...). */
  env?: Record<string, string>;
  /** Processes' output: shown (the default) or dropped. */
  output?: "inherit" | "ignore";
  /** Where NATS keeps its streams (default: a fresh directory, removed at stop). */
  dataDir?: string;
}

export interface ClusterProcess {
  /** `<service>#<n>`, n from 1. */
  name: string;
  service: ClusterService;
  /** The admin server: /healthz, /readyz, /metrics. */
  adminUrl: string;
  /** The gateway's own address (gateways only). */
  url?: string;
  proc: Subprocess;
}

export interface Cluster {
  /** The round-robin proxy in front of every gateway. */
  url: string;
  nats: NatsServer;
  /** Each NATS user's password for this run (deploy/nats/nats.conf reads them from the server's environment). */
  natsPasswords: Record<NatsUser, string>;
  processes: Map<string, ClusterProcess>;
  /** Sends `signal` (SIGKILL by default) to one process and resolves its exit code. */
  kill(name: string, signal?: NodeJS.Signals | number): Promise<number>;
  /** Starts a process again with its earlier ports; resolves when it is ready. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function launchCluster(opts: ClusterOptions): Promise<Cluster> {
  const replicas = opts.replicas ?? 2;
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`replicas must be a whole number of at least 1, got ${replicas}`);
  const ownDir = opts.dataDir ? undefined : mkdtempSync(join(tmpdir(), "trove-cluster-"));
  // A letter first: nats-server parses a variable's value, and a password starting with a digit stops it.
  const natsPasswords = Object.fromEntries(natsUsers.map((u) => [u, `p${crypto.randomUUID().replaceAll("-", "")}`])) as Record<NatsUser, string>;
  const nats = await startNatsServer({
    config: natsConfigPath,
    storeDir: join(opts.dataDir ?? ownDir!, "nats"),
    env: { PATH: process.env.PATH ?? "", ...Object.fromEntries(natsUsers.map((u) => [passwordVariable(u), natsPasswords[u]])) },
    // Its warnings and errors (a refused sign-in or subject shows here); the banner is left out.
    onLine: opts.output === "ignore" ? undefined : (line) => /\[(WRN|ERR|FTL)\]/.test(line) && !line.includes("Plaintext passwords") && console.error(`nats: ${line}`),
  });
  const processes = new Map<string, ClusterProcess>();
  const envs = new Map<string, Record<string, string>>();
  let adminIndex = 0;
  // A port found free is free until someone binds it: one handed to a process not yet listening is not handed twice.
  const taken = new Set<number>();
  const newPort = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) return taken.add(port), port;
    }
  };
  const plan = async (service: ClusterService, n: number) => {
    const name = `${service}#${n}`;
    const adminPort = opts.adminPortBase !== undefined ? opts.adminPortBase + adminIndex++ : await newPort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      ...opts.env,
      DATABASE_URL: opts.databaseUrl,
      NATS_URL: nats.url,
      NATS_USER: service,
      NATS_PASSWORD: natsPasswords[service],
      TROVE_BUS_PREFIX: "trove",
      TROVE_ADMIN_HOST: "127.0.0.1",
      TROVE_ADMIN_PORT: String(adminPort),
    };
    let url: string | undefined;
    if (service === "gateway") {
      const port = await newPort();
      Object.assign(env, { HOST: "127.0.0.1", PORT: String(port), TROVE_TRUSTED_PROXIES: "127.0.0.1" });
      url = `http://127.0.0.1:${port}`;
    }
    envs.set(name, env);
    const proc = spawn(service, env, opts.output);
    processes.set(name, { name, service, adminUrl: `http://127.0.0.1:${adminPort}`, url, proc });
  };
  const proxy: RoundRobin = startRoundRobin({
    port: opts.port ?? 0,
    targets: () => [...processes.values()].filter((p) => p.service === "gateway" && p.proc.exitCode === null).map((p) => p.url!),
  });
  const cluster: Cluster = {
    url: proxy.url,
    nats,
    natsPasswords,
    processes,
    kill: async (name, signal = "SIGKILL") => {
      const p = processes.get(name);
      if (!p) throw new Error(`no process ${name}`);
      p.proc.kill(signal);
      return p.proc.exited;
    },
    restart: async (name) => {
      const p = processes.get(name);
      if (!p) throw new Error(`no process ${name}`);
      p.proc = spawn(p.service, envs.get(name)!, opts.output);
      await waitUntilReady(p);
    },
    stop: async () => {
      for (const p of processes.values()) p.proc.kill("SIGTERM");
      await Promise.all([...processes.values()].map((p) => p.proc.exited));
      await proxy.stop();
      await nats.stop();
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
  try {
    // The first replica of each service migrates its schema; the others start once that is done.
    for (const service of clusterServices) await plan(service, 1);
    await Promise.all([...processes.values()].map((p) => waitUntilReady(p)));
    for (let n = 2; n <= replicas; n++) for (const service of clusterServices) await plan(service, n);
    await Promise.all([...processes.values()].map((p) => waitUntilReady(p)));
    // The gateways' health asks every service over the bus: every subject has a server.
    await waitForHealth(proxy.url);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

function spawn(service: ClusterService, env: Record<string, string>, output: "inherit" | "ignore" = "inherit"): Subprocess {
  return Bun.spawn(["bun", "run", `services/${service}/main.ts`], { cwd: repoRoot, env, stdout: output, stderr: output, stdin: "ignore" });
}

/** Waits for a process's /readyz to answer 200; rejects when the process exits first. */
export async function waitUntilReady(p: ClusterProcess, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  let last = "no answer";
  while (Date.now() < until) {
    if (p.proc.exitCode !== null) throw new Error(`${p.name} exited with code ${p.proc.exitCode} before it was ready`);
    try {
      const res = await fetch(`${p.adminUrl}/readyz`);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await Bun.sleep(100);
  }
  throw new Error(`${p.name} was not ready within ${ms} ms; last: ${last}`);
}

/** Waits until the API's health answers "ok" (every service reachable). */
async function waitForHealth(url: string, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  let last = "no answer";
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/api/health`);
      const body = (await res.json()) as { status?: string };
      if (body.status === "ok") return;
      last = JSON.stringify(body);
    } catch (err) {
      last = (err as Error).message;
    }
    await Bun.sleep(100);
  }
  throw new Error(`health was not ok within ${ms} ms; last: ${last}`);
}
