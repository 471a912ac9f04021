// The kill suite on the distributed deployment: every service its own process over PostgreSQL (a scratch database
// at DATABASE_URL) and a NATS server of this test's own (so that restarting it disturbs no other test), under a
// mixed load from this process. During the load each service in turn is killed (SIGKILL) and started again, the
// gateway too, then NATS itself (killed and started on the same JetStream store), and every PostgreSQL connection
// is cut (pg_terminate_backend) twice. Afterwards every acknowledged write is looked for: see load.ts and
// docs/reliability.md.
import { afterAll, describe, expect, test } from "bun:test";
import { NatsBus } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { createLogger } from "@trove/log";
import {
  createScratchDatabase,
  dropScratchDatabase,
  freePort,
  launchDistributed,
  natsServerBinary,
  startNatsServer,
  startWebhookReceiver,
  terminateBackends,
  waitForHealth,
  type Backing,
  type NatsServer,
  type ProcessName,
  type Topology,
} from "@trove/testing";
import { faultEnv, loadSize, runLoad, startSlowPages, verify, verifyDatabase, waitUntilSettled, type Fault } from "./load.ts";

const skip = !(process.env.DATABASE_URL && process.env.NATS_URL)
  ? "DATABASE_URL and NATS_URL are not both set"
  : !natsServerBinary()
    ? "no nats-server binary (set TROVE_NATS_SERVER or put nats-server on PATH)"
    : undefined;

/** Each durable consumer of the run's stream as the server sees it: why a deployment did not settle. */
async function consumerReport(url: string, prefix: string) {
  const bus = await NatsBus.connect({ url, prefix, log: createLogger("silent") });
  try {
    const jsm = (bus as unknown as { jsm: { consumers: { list(stream: string): AsyncIterable<any> } } }).jsm;
    const out: Record<string, unknown> = {};
    for await (const c of jsm.consumers.list(`${prefix}_events`)) {
      out[c.name] = { pending: c.num_pending, ackPending: c.num_ack_pending, redelivered: c.num_redelivered, waiting: c.num_waiting, delivered: c.delivered?.stream_seq, ackFloor: c.ack_floor?.stream_seq };
    }
    return out;
  } finally {
    await bus.close();
  }
}

if (skip) {
  console.log(`SKIPPED distributed kill suite: ${skip}`);
  describe.skip(`distributed kill suite (skipped: ${skip})`, () => test("every service killed in turn, NATS restarted, PostgreSQL connections cut", () => {}));
} else {
  let nats: NatsServer | undefined;
  let databaseUrl: string | undefined;
  let topo: Topology | undefined;
  const receiver = startWebhookReceiver();
  const slow = startSlowPages();

  afterAll(async () => {
    await topo?.stop();
    await nats?.stop();
    if (databaseUrl) await dropScratchDatabase(databaseUrl).catch(() => {});
    receiver.stop();
    slow.stop();
  });

  test("distributed: each service, the gateway and NATS killed, and PostgreSQL connections cut, under load lose nothing acknowledged", async () => {
    nats = await startNatsServer();
    databaseUrl = await createScratchDatabase("faults");
    const backing: Backing = { databaseUrl, natsUrl: nats.url, prefix: `faults${crypto.randomUUID().slice(0, 8)}`, how: "DATABASE_URL + a NATS server of its own", stop: async () => {} };
    const smtpPort = await freePort();
    topo = await launchDistributed(backing, { ...faultEnv, TROVE_SMTP_PORT: String(smtpPort) });
    const t = topo;
    const n = nats;
    const db = databaseUrl;
    const exits: string[] = [];
    const restartService = (name: ProcessName, at: number): Fault => ({
      name: `SIGKILL ${name}`,
      at,
      run: async () => {
        exits.push(`${name}: ${await t.kill(name, "SIGKILL")}`);
        t.restart(name);
        await waitForHealth(t.url, "ok", 120_000);
      },
    });
    const cutConnections = (name: string, at: number): Fault => ({
      name,
      at,
      run: async () => void exits.push(`connections cut: ${await terminateBackends(db)}`),
    });
    const faults: Fault[] = [
      restartService("items", 0.08),
      restartService("notes", 0.16),
      cutConnections("PostgreSQL connections cut", 0.24),
      restartService("sources", 0.32),
      restartService("delivery", 0.4),
      {
        name: "NATS killed and restarted",
        at: 0.48,
        run: async () => {
          exits.push(`nats: ${await n.kill("SIGKILL")}`);
          await n.restart();
          await waitForHealth(t.url, "ok", 120_000);
        },
      },
      restartService("exports", 0.56),
      restartService("gateway", 0.64),
      cutConnections("PostgreSQL connections cut again", 0.72),
      restartService("items", 0.8),
    ];
    const target = { url: t.url, smtpPort, up: async () => void (await waitForHealth(t.url, "ok", 120_000)) };
    const rec = await runLoad(target, receiver, slow, loadSize, faults);
    expect(rec.faults).toHaveLength(faults.length);

    await waitUntilSettled(t.url).catch(async (err) => {
      console.log(`[faults] JetStream consumers: ${JSON.stringify(await consumerReport(n.url, backing.prefix))}`);
      throw err;
    });
    const { figures, lost, noteRevisions } = await verify(t.url, rec, receiver, { semantic: true });
    // No process died of a fault it should have survived (a cut connection, a NATS restart).
    for (const [name, proc] of t.procs) if (proc.exitCode !== null || proc.signalCode !== null) lost.push(`process ${name} exited (${proc.exitCode ?? proc.signalCode})`);
    const database = await openDatabase({ databaseUrl: db, poolSize: 1 });
    try {
      lost.push(...(await verifyDatabase(database.db, noteRevisions)));
    } finally {
      await database.close();
    }
    figures.lost = lost.length;
    console.log(`kill suite, distributed: ${JSON.stringify({ ...figures, exits })}`);
    expect(lost).toEqual([]);
  }, 600_000);
}
