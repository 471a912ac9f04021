// nats-server for the local cluster and the tests: its own port on 127.0.0.1 and its own store, optionally with
// Trove's deploy configuration (deploy/nats/nats.conf: one user per service, passwords from the environment).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./ports.ts";

type Signal = NodeJS.Signals | number;

export const repoRoot = join(import.meta.dir, "..", "..");
export const natsConfigPath = join(repoRoot, "deploy", "nats", "nats.conf");
/** The NATS users of deploy/nats/nats.conf: one per service, and `trove` for a process that runs them all. */
export const natsUsers = ["gateway", "items", "notes", "sources", "delivery", "exports", "trove"] as const;
export type NatsUser = (typeof natsUsers)[number];
/** The environment variable nats.conf reads a user's password from. */
export const passwordVariable = (user: NatsUser) => `TROVE_NATS_${user.toUpperCase()}_PASSWORD`;

/** Fails as soon as the process exits, so a start that crashes is not waited on for the whole deadline. */
export async function untilExit<T>(proc: Subprocess, what: string, ready: Promise<T>): Promise<T> {
  const exited = proc.exited.then((code) => {
    throw new Error(`${what} exited with ${code} before it was ready`);
  });
  return Promise.race([ready, exited]);
}

/** The nats-server binary: TROVE_NATS_SERVER, else `nats-server` on PATH, else Debian's; undefined when none. */
export function natsServerBinary(): string | undefined {
  const named = process.env.TROVE_NATS_SERVER;
  if (named) return named;
  return Bun.which("nats-server") ?? (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : undefined);
}

export interface NatsServer {
  /** Same on every restart. */
  url: string;
  /** JetStream's store: kept across restarts, so streams and durable consumers come back. */
  storeDir: string;
  readonly proc: Subprocess;
  /** Sends `signal` (SIGKILL by default) and waits for the server to exit; resolves its exit code. */
  kill(signal?: Signal): Promise<number>;
  /** Starts the server again on the same port and store (a running one is stopped with SIGTERM first). */
  restart(): Promise<void>;
  /** Stops the server and removes its store. */
  stop(): Promise<void>;
}

/**
 * A NATS server with JetStream of this test's own, on 127.0.0.1 and a free port, storing in `storeDir` (a fresh
 * temporary directory by default). Resolves once the server says it is ready (JetStream's store recovered).
 */
export async function startNatsServer(
  opts: {
    storeDir?: string;
    /** A configuration file (`-c`); the port, address and store still come from the flags. */
    config?: string;
    /** The server's environment (a configuration's `$VARIABLES`, such as passwords). */
    env?: Record<string, string>;
    /** Every line the server logs (a test watching for refusals). */
    onLine?: (line: string) => void;
  } = {},
): Promise<NatsServer> {
  const binary = natsServerBinary();
  if (!binary) throw new Error("no nats-server binary: set TROVE_NATS_SERVER or put nats-server on PATH");
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), "trove-nats-"));
  const port = await freePort();
  let proc: Subprocess<"ignore", "ignore", "pipe"> | undefined;
  const running = () => {
    if (!proc) throw new Error("the NATS server was stopped");
    return proc;
  };
  const launch = async () => {
    const config = opts.config ? ["-c", opts.config] : [];
    const p = Bun.spawn([binary, ...config, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], {
      ...(opts.env ? { env: opts.env } : {}),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    proc = p;
    // The server logs to stderr; it is read to the end (so it never blocks on a full pipe) and its tail kept for errors.
    const tail: string[] = [];
    const ready = new Promise<void>((resolve) => {
      void (async () => {
        let pending = "";
        for await (const chunk of p.stderr.pipeThrough(new TextDecoderStream())) {
          pending += chunk;
          const lines = pending.split("\n");
          pending = lines.pop()!;
          for (const line of lines) {
            opts.onLine?.(line);
            tail.push(line);
            if (tail.length > 20) tail.shift();
            if (line.includes("Server is ready")) resolve();
          }
        }
      })();
    });
    await untilExit(p, "nats-server", ready).catch((err: Error) => {
      throw new Error(`${err.message}:\n${tail.join("\n")}`);
    });
  };
  const kill = async (signal: Signal = "SIGKILL") => {
    const p = running();
    p.kill(signal);
    return p.exited;
  };
  const stop = async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) await kill("SIGTERM");
    proc = undefined;
    if (!opts.storeDir) rmSync(storeDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    storeDir,
    get proc() {
      return running();
    },
    kill,
    restart: async () => {
      const p = running();
      if (p.exitCode === null && p.signalCode === null) await kill("SIGTERM");
      await launch();
    },
    stop,
  };
}

