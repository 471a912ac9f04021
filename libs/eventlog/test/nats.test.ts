// Real: PostgreSQL at DATABASE_URL (a scratch database per run) and nats-server with JetStream at NATS_URL (a fresh
// prefix per run): consumers are JetStream durables fed by the relay. The restart test runs its own nats-server
// (on a free loopback port, with its own store directory) on PGlite, so restarting it disturbs no other test.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NatsBus, dropNatsNamespace } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { createLogger } from "@trove/log";
import { freshPglite } from "@trove/testing/pglite.ts";
import { createScratchDatabase, dropScratchDatabase } from "@trove/testing/postgres.ts";
import { EventLog, migrateEventLog } from "../index.ts";
import { collector, eventLogContract, recordAll, space, until, type Proc, type Stack } from "./contract.ts";

const quiet = createLogger("silent");
const natsUrl = process.env.NATS_URL;
const databaseUrl = process.env.DATABASE_URL;

async function natsStack(): Promise<Stack> {
  const url = await createScratchDatabase("eventlog_nats");
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  const root = await openDatabase({ databaseUrl: url });
  await migrateEventLog(root.db);
  return {
    db: root.db,
    open: async (opts = {}): Promise<Proc> => {
      const own = await openDatabase({ databaseUrl: url, poolSize: 4 });
      const bus = await NatsBus.connect({ url: natsUrl!, prefix, log: quiet });
      const events = new EventLog({ db: own.db, bus, log: quiet, ...opts });
      await events.start();
      return {
        events,
        bus,
        db: own.db,
        crash: async () => {
          await bus.close().catch(() => {});
          await own.db.destroy().catch(() => {});
        },
        close: async () => {
          await events.stop();
          await bus.close().catch(() => {});
          await own.close().catch(() => {});
        },
      };
    },
    teardown: async () => {
      await root.close();
      await dropScratchDatabase(url).catch(() => {});
      await dropNatsNamespace(natsUrl!, prefix).catch(() => {});
    },
  };
}

if (natsUrl && databaseUrl) {
  eventLogContract("postgres with NATS JetStream", { concurrentTransactions: true, jetstream: true }, natsStack);

  describe("event log on JetStream", () => {
    let stack: Stack;
    afterAll(() => stack?.teardown());

    test("each positioned event is published once: a republish after a crash is a duplicate JetStream drops", async () => {
      stack = await natsStack();
      const p = await stack.open();
      const s = space();
      const heard: string[] = [];
      const sub = await (p.bus as NatsBus).consume({ durable: s.consumer("watch"), filter: s.filter }, async (e) => void heard.push(e.id));
      const ids = await recordAll(p, [1, 2, 3].map((n) => ({ stream: "test", subject: s.subject(`e${n}`), accountId: s.account, data: { n } })));
      await until(() => heard.length === 3, "the three events");
      // As if the process died between publishing and marking: the relay publishes them again.
      await stack.db.updateTable("eventlog.events").set({ published_at: null }).where("id", "in", ids).execute();
      const [marker] = await recordAll(p, [{ stream: "test", subject: s.subject("marker"), accountId: s.account, data: {} }]);
      await until(() => heard.includes(marker!), "the event recorded after the republish");
      expect(heard).toEqual([...ids, marker!]);
      // The relay marks a batch once the whole of it is published, which may be just after the marker is heard.
      const unpublished = () => stack.db.selectFrom("eventlog.events").select("id").where("id", "in", ids).where("published_at", "is", null).execute();
      await until(async () => (await unpublished()).length === 0, "the republished events marked published");
      await sub.stop();
      await p.close();
    });

    test("a consumer that moves from the bus onto the log keeps its place under its name, and is never given up on", async () => {
      stack ??= await natsStack();
      const p = await stack.open({ log: createLogger("silent") });
      const s = space();
      const name = s.consumer("moved");
      // On the bus, as consumers are before they move: the bus's default gives an event up after five deliveries.
      const before: string[] = [];
      const old = await (p.bus as NatsBus).consume({ durable: name, filter: s.filter }, async (e) => void before.push(e.id));
      const [first] = await recordAll(p, [{ stream: "test", subject: s.subject("first"), accountId: s.account, data: {} }]);
      await until(() => before.includes(first!), "the bus consumer's event");
      await old.stop();

      const [second] = await recordAll(p, [{ stream: "test", subject: s.subject("second"), accountId: s.account, data: {} }]);
      const tries: string[] = [];
      const sub = await p.events.consume({ name, filter: s.filter, retryDelaysMs: [5] }, async (events) => {
        tries.push(...events.map((e) => e.id));
        if (tries.length < 8) throw new Error("not yet");
      });
      await until(() => tries.length >= 8 && tries.at(-1) === second, "the eighth delivery, taken");
      expect(new Set(tries)).toEqual(new Set([second!]));
      await until(async () => (await p.events.lag())[name] === 0, "acknowledged");
      await sub.stop();
      await p.close();
    });
  });
} else {
  console.log("SKIPPED event log on NATS JetStream: DATABASE_URL and NATS_URL are not both set");
  describe.skip("event log on postgres with NATS JetStream (skipped: DATABASE_URL and NATS_URL are not both set)", () =>
    test("the event log contract", () => {}),
  );
}

const natsServer = process.env.TROVE_NATS_SERVER ?? Bun.which("nats-server") ?? "/usr/sbin/nats-server";

/** Our own nats-server on a free loopback port, with a store directory that outlives a kill. */
async function ownNatsServer() {
  const dir = mkdtempSync(join(tmpdir(), "trove-nats-"));
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const spawn = () =>
    Bun.spawn([natsServer, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], { stdout: "ignore", stderr: "ignore" });
  let proc = spawn();
  const ready = () =>
    until(
      async () => {
        try {
          await (await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } })).end();
          return true;
        } catch {
          return false;
        }
      },
      "nats-server listens",
    );
  await ready();
  return {
    url: `nats://127.0.0.1:${port}`,
    async restart() {
      proc.kill("SIGKILL");
      await proc.exited;
      proc = spawn();
      await ready();
    },
    async stop() {
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (existsSync(natsServer)) {
  test("a consumer on JetStream goes on after its nats-server is killed and started again", async () => {
    const server = await ownNatsServer();
    const database = await freshPglite();
    await migrateEventLog(database.db);
    const bus = await NatsBus.connect({ url: server.url, prefix: "restart", log: quiet });
    const events = new EventLog({ db: database.db, bus, log: quiet });
    try {
      await events.start();
      const proc: Proc = { events, bus, db: database.db, crash: async () => {}, close: async () => {} };
      const s = space();
      const seen = collector();
      const sub = await events.consume({ name: s.consumer("survivor"), filter: s.filter }, seen.handler);
      const [before] = await recordAll(proc, [{ stream: "test", subject: s.subject("before"), accountId: s.account, data: {} }]);
      await until(() => seen.ids().includes(before!), "the event before the kill");
      await server.restart();
      // Recorded while the bus may still be reconnecting: the relay publishes it once it can.
      const [after] = await recordAll(proc, [{ stream: "test", subject: s.subject("after"), accountId: s.account, data: {} }]);
      await until(() => seen.ids().includes(after!), "the event after the restart", 60_000);
      await sub.stop();
    } finally {
      await events.stop();
      await bus.close().catch(() => {});
      await database.close();
      await server.stop();
    }
  }, 90_000);
} else {
  console.log(`SKIPPED event log across a nats-server restart: no nats-server at ${natsServer}`);
  test.skip("a consumer on JetStream goes on after its nats-server is killed and started again (skipped: no nats-server)", () => {});
}
