// Processes a fault test kills and starts again: the embedded deployment (`bun run trove.ts` on a data directory),
// a NATS server of the test's own (so restarting it disturbs no other test), and PostgreSQL connections cut from
// outside. Everything listens on 127.0.0.1 only.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import pg from "pg";
import { untilExit } from "@trove/cluster";
import { pgliteDirFromTemplate } from "./pglite.ts";
import { testStackDefaults } from "./stack.ts";
import { freePort, repoRoot, waitForHealth } from "./topology.ts";
import { apiAt, seedAccounts, type Api } from "./trove.ts";

type Signal = NodeJS.Signals | number;

export interface EmbeddedProcess {
  /** Same on every restart: the port and the data directory are kept. */
  url: string;
  /** The mail listener's port, when the env gave one (TROVE_SMTP_PORT). */
  smtpPort: number | undefined;
  dataDir: string;
  /** fetch against its API, as alice unless `key` says otherwise (null: no credential). */
  api: Api;
  /** The running process (a new one after each restart). */
  readonly proc: Subprocess;
  /** Resolves with the running process's exit code. */
  readonly exited: Promise<number>;
  /** Sends `signal` (SIGKILL by default) and waits for the process to exit; resolves its exit code. */
  kill(signal?: Signal): Promise<number>;
  /** Starts Trove again on the same data directory and port (a running one is stopped with SIGTERM first). */
  restart(): Promise<void>;
  /** Stops Trove (SIGTERM) and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * The embedded deployment as users run it: every service in one `bun run trove.ts` process on PGlite in its own
 * data directory (made from the template, so no initdb) and the in-process bus, on a fixed port. `env` is laid
 * over the test defaults (seeded accounts, private network allowed, warn logs, no semantic search, no mail
 * listener unless TROVE_SMTP_PORT names a port).
 */
export async function spawnEmbedded(env: Record<string, string> = {}): Promise<EmbeddedProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "trove-embedded-"));
  const port = await freePort();
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    PORT: String(port),
    TROVE_DATA_DIR: dataDir,
    TROVE_SEED_ACCOUNTS: seedAccounts,
    TROVE_ALLOW_PRIVATE_NETWORK: "1",
    LOG_LEVEL: "warn",
    TROVE_VALIDATE_RESPONSES: "1",
    ...testStackDefaults,
    ...env,
  };
  const url = `http://127.0.0.1:${port}`;
  const smtp = Number(fullEnv.TROVE_SMTP_PORT);
  let proc: Subprocess | undefined;
  const running = (): Subprocess => {
    if (!proc) throw new Error("the embedded Trove was stopped");
    return proc;
  };
  const launch = async () => {
    // `bun run <file>` runs Trove in this very process (no shell, no child), so a signal reaches Trove itself.
    proc = Bun.spawn(["bun", "run", "trove.ts"], { cwd: repoRoot, env: fullEnv, stdout: "inherit", stderr: "inherit" });
    await untilExit(proc, "the embedded Trove", waitForHealth(url));
  };
  const kill = async (signal: Signal = "SIGKILL") => {
    const p = running();
    p.kill(signal);
    return p.exited;
  };
  const stop = async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) await kill("SIGTERM");
    proc = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await pgliteDirFromTemplate(dataDir);
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    smtpPort: smtp > 0 ? smtp : undefined,
    dataDir,
    api: apiAt(() => url),
    get proc() {
      return running();
    },
    get exited() {
      return running().exited;
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

export { natsServerBinary, startNatsServer, type NatsServer } from "@trove/cluster";

/**
 * Cuts every client connection to the database at `databaseUrl` (as a failover or an operator's
 * pg_terminate_backend would), from a connection of its own; resolves how many were cut.
 */
export async function terminateBackends(databaseUrl: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ cut: number }>(
      `select (count(*) filter (where pg_terminate_backend(pid)))::int as cut from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
    );
    return rows[0]!.cut;
  } finally {
    await admin.end();
  }
}
