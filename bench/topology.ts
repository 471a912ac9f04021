// Processes for the bench scripts, and the CPU they use. Their output goes to /dev/null: at LOG_LEVEL=info every
// request writes an access line, which belongs in the measurement but not on the terminal; errors reach stderr.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, processEnv, repoRoot, serviceNames, waitForHealth, type Backing } from "@trove/testing";

/**
 * The settings a benchmark's Trove runs with when it measures the API alone: no rate limit, quiet logs, no response
 * validation, saves that wait for their extraction (every answer carries its outcome, not `background: true`), and
 * no semantic search (its start-up backfill would embed the library beside the measurements).
 */
export const measuringEnv: Record<string, string> = {
  TROVE_RATE_LIMIT: "100000000",
  LOG_LEVEL: "warn",
  TROVE_VALIDATE_RESPONSES: "0",
  TROVE_INGEST_WAIT_MS: "60000",
  TROVE_SEMANTIC: "off",
};

/** `bun run <args>` from the repository root. */
export function spawnQuiet(args: string[], env: Record<string, string>): Subprocess {
  return Bun.spawn(["bun", "run", ...args], { cwd: repoRoot, env, stdout: "ignore", stderr: "inherit" });
}

export async function stopAll(procs: Iterable<Subprocess>): Promise<void> {
  const all = [...procs];
  for (const p of all) p.kill("SIGTERM");
  await Promise.all(all.map((p) => p.exited));
}

export interface Distributed {
  url: string;
  procs: Map<string, Subprocess>;
  /**
   * Stops one service's process and starts it again (a fresh process: its memory measured from its start);
   * `bunArgs` go before the script (`--cpu-prof-md`, ...).
   */
  restart(name: (typeof serviceNames)[number], bunArgs?: string[]): Promise<Subprocess>;
  stop(): Promise<void>;
}

/**
 * The allocator settings deploy/Dockerfile gives every service process (`ENV MIMALLOC_...`), read from it so the
 * distributed benchmarks run the services as the image does; `bun run start` sets the same in package.json.
 */
export function imageAllocatorEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(repoRoot, "deploy", "Dockerfile"), "utf8");
  return Object.fromEntries([...dockerfile.matchAll(/^ENV (MIMALLOC_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Every service its own process over the backing PostgreSQL and NATS, as launchDistributed in @trove/testing. */
export async function startDistributed(backing: Backing, extraEnv: Record<string, string>): Promise<Distributed> {
  const port = await freePort();
  const env = processEnv(backing, port, { ...imageAllocatorEnv(), ...extraEnv });
  const procs = new Map(serviceNames.map((name) => [name, spawnQuiet([`services/${name}/main.ts`], env)] as const));
  const restart = async (name: (typeof serviceNames)[number], bunArgs: string[] = []) => {
    const old = procs.get(name);
    if (old) await stopAll([old]);
    const fresh = spawnQuiet([...bunArgs, `services/${name}/main.ts`], env);
    procs.set(name, fresh);
    return fresh;
  };
  const topology = { url: `http://127.0.0.1:${port}`, procs, restart, stop: () => stopAll(procs.values()) };
  try {
    await waitForHealth(topology.url);
  } catch (err) {
    await topology.stop();
    throw err;
  }
  return topology;
}

export interface Embedded {
  url: string;
  dataDir: string;
  /** The running `bun run start` process (a new one after each `paused`). */
  pid(): number;
  /** Stops Trove, runs fn (PGlite's data directory is one process's: SQL from the bench needs it stopped), starts it again. */
  paused<T>(fn: () => Promise<T>): Promise<T>;
  /** Stops Trove and removes its data directory. */
  stop(): Promise<void>;
}

/** `bun run start` on PGlite in a fresh data directory: the embedded deployment, with no PostgreSQL or NATS. */
export async function startEmbedded(backing: Backing, extraEnv: Record<string, string>, name: string): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), `trove-bench-${name}-`));
  const port = await freePort();
  const env = { ...processEnv(backing, port, extraEnv), TROVE_DATA_DIR: dataDir } as Record<string, string>;
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  const url = `http://127.0.0.1:${port}`;
  let proc: Subprocess | null = spawnQuiet(["start"], env);
  const stop = async () => {
    if (proc) await stopAll([proc]);
    proc = null;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    dataDir,
    pid: () => proc!.pid,
    async paused(fn) {
      await stopAll([proc!]);
      proc = null;
      const result = await fn();
      proc = spawnQuiet(["start"], env);
      await waitForHealth(url);
      return result;
    },
    stop,
  };
}

/** A process and all its descendants (`bun run start` runs Trove in a child of the process it spawns). */
export function treeOf(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${task}/children`, "utf8").trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** CPU time (user + system) each process has used so far, in microseconds, from /proc (USER_HZ = 100). */
export function cpuByPid(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      out.set(pid, ((Number(f[11]) + Number(f[12])) / 100) * 1e6);
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** CPU microseconds the processes used since `before`, counting only those alive at both readings. */
export function cpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, used] of cpuByPid([...before.keys()])) total += used - before.get(pid)!;
  return total;
}

/** Pids of the nats-server processes on this machine (shared with anything else using NATS). */
export function natsServerPids(): number[] {
  return Bun.spawnSync(["pgrep", "-x", "nats-server"]).stdout.toString().trim().split("\n").filter(Boolean).map(Number);
}
