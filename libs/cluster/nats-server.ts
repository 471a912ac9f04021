// nats-server with Trove's deploy configuration (deploy/nats/nats.conf), as the manifests run it: one user per
// service, each with its password from the server's environment. Here the passwords are made fresh per run.
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const repoRoot = join(import.meta.dir, "..", "..");
export const natsConfigPath = join(repoRoot, "deploy", "nats", "nats.conf");
/** The NATS users of deploy/nats/nats.conf: one per service, and `trove` for a process that runs them all. */
export const natsUsers = ["gateway", "items", "notes", "sources", "delivery", "exports", "trove"] as const;
export type NatsUser = (typeof natsUsers)[number];

export interface NatsServer {
  url: string;
  /** Each user's password for this run. */
  passwords: Record<NatsUser, string>;
  stop(): Promise<void>;
}

/** The nats-server binary: TROVE_NATS_SERVER, else one on PATH, else Debian's; undefined when none is installed. */
export function findNatsServer(): string | undefined {
  const candidates = [process.env.TROVE_NATS_SERVER, Bun.which("nats-server") ?? undefined, "/usr/sbin/nats-server"];
  return candidates.find((c): c is string => !!c && existsSync(c));
}

/** The environment variable nats.conf reads a user's password from. */
export const passwordVariable = (user: NatsUser) => `TROVE_NATS_${user.toUpperCase()}_PASSWORD`;

export async function startNatsServer(opts: { port: number; storeDir: string; binary?: string; config?: string; quiet?: boolean }): Promise<NatsServer> {
  const binary = opts.binary ?? findNatsServer();
  if (!binary) throw new Error("nats-server is not installed (set TROVE_NATS_SERVER to its path)");
  const passwords = Object.fromEntries(natsUsers.map((u) => [u, crypto.randomUUID().replaceAll("-", "")])) as Record<NatsUser, string>;
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const u of natsUsers) env[passwordVariable(u)] = passwords[u];
  // The flags override the file's address, port and store directory.
  const args = [binary, "-c", opts.config ?? natsConfigPath, "-a", "127.0.0.1", "-p", String(opts.port), "-sd", opts.storeDir];
  const proc: Subprocess = Bun.spawn(args, { env, stdout: opts.quiet ? "ignore" : "inherit", stderr: opts.quiet ? "ignore" : "inherit" });
  await waitForPort(opts.port, proc);
  return {
    url: `nats://127.0.0.1:${opts.port}`,
    passwords,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Resolves once something accepts connections on the port; rejects when the process exits first. */
async function waitForPort(port: number, proc: Subprocess, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`nats-server exited with code ${proc.exitCode} (is its configuration valid?)`);
    if (await accepts(port)) return;
    await Bun.sleep(50);
  }
  proc.kill();
  throw new Error(`nats-server did not listen on port ${port} within ${ms} ms`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
