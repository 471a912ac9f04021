// The restart and fault harness, tried on the real thing: a Trove restarted in this process on the same data,
// the embedded deployment as its own process killed with SIGKILL, a schema that refuses writes, a NATS server of
// the test's own killed and restarted, PostgreSQL connections cut from outside. What the fault tests build on, so
// each is shown to do what it says, through the API where there is one.
import { describe, expect, test } from "bun:test";
import pg from "pg";
import { NatsBus, dropNatsNamespace } from "@trove/bus/nats.ts";
import { createLogger } from "@trove/log";
import {
  acceptWrites,
  articleHtml,
  createScratchDatabase,
  dropScratchDatabase,
  eventually,
  natsServerBinary,
  refuseWrites,
  spawnEmbedded,
  startNatsServer,
  startTrove,
  terminateBackends,
  type TestTrove,
} from "@trove/testing";

const save = async (trove: Pick<TestTrove, "api">, url: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url, html: articleHtml } });
  return { status: res.status, body: await res.json() };
};

describe("restart() in this process", () => {
  test("what was saved and written is there after a restart; a restart without a service leaves it out until the next", async () => {
    const trove = await startTrove({}, { persistent: true });
    try {
      const saved = await save(trove, "https://restart.example.test/kept");
      expect(saved.status).toBe(200);
      const note = await trove.api("/api/notes", { method: "POST", json: { title: "Kept", bodyMarkdown: "Written before the restart." } });
      expect(note.status).toBe(200);
      const noteId = (await note.json()).note.id;

      await trove.restart({ without: ["notes"] });
      const item = await trove.api(`/api/items/${saved.body.id}`);
      expect(item.status).toBe(200);
      expect(await item.json()).toMatchObject({ title: "Parsing Things Well", contentAvailable: true });
      const absent = await trove.api(`/api/notes/${noteId}`);
      expect(absent.status).toBe(503);
      expect(await absent.json()).toMatchObject({ error: "service_unavailable" });

      await trove.restart();
      const back = await trove.api(`/api/notes/${noteId}`);
      expect(back.status).toBe(200);
      expect((await back.json()).note).toMatchObject({ title: "Kept", bodyMarkdown: "Written before the restart." });
    } finally {
      await trove.stop();
    }
  }, 120_000);

  test("restart() without persistent: the embedded stack says what it needs, the scratch database persists anyway", async () => {
    const trove = await startTrove();
    try {
      if (trove.stack === "embedded") await expect(trove.restart()).rejects.toThrow("persistent");
      else {
        // The scratch PostgreSQL database persists on its own.
        const saved = await save(trove, "https://restart.example.test/scratch");
        await trove.restart();
        expect((await trove.api(`/api/items/${saved.body.id}`)).status).toBe(200);
      }
    } finally {
      await trove.stop();
    }
  }, 60_000);
});

describe("refuseWrites", () => {
  test("a save under refused writes answers a 5xx JSON error, reads go on, the fault outlasts a restart, and saves work again after acceptWrites", async () => {
    const trove = await startTrove({}, { persistent: true });
    try {
      const before = await save(trove, "https://refuse.example.test/before");
      expect(before.status).toBe(200);

      // The items table only: a start writes the schema's queue (jobs a dead process left are queued again).
      await refuseWrites(trove.db, "items", ["items"]);
      const refused = await save(trove, "https://refuse.example.test/during");
      expect(refused.status).toBeGreaterThanOrEqual(500);
      expect(typeof refused.body.error).toBe("string");
      expect(JSON.stringify(refused.body)).not.toContain("    at ");
      expect((await trove.api(`/api/items/${before.body.id}`)).status).toBe(200);

      await trove.restart();
      expect((await save(trove, "https://refuse.example.test/during")).status).toBeGreaterThanOrEqual(500);

      await acceptWrites(trove.db, "items");
      const after = await save(trove, "https://refuse.example.test/during");
      expect(after.status).toBe(200);
      expect((await trove.api(`/api/items/${after.body.id}`)).status).toBe(200);
    } finally {
      await trove.stop();
    }
  }, 120_000);

  test("only the tables named are refused", async () => {
    const trove = await startTrove();
    try {
      await refuseWrites(trove.db, "items", ["collections"]);
      const refused = await trove.api("/api/collections", { method: "POST", json: { name: "Refused" } });
      expect(refused.status).toBeGreaterThanOrEqual(500);
      // A save writes no collection: untouched.
      expect((await save(trove, "https://refuse.example.test/untouched")).status).toBe(200);
      await acceptWrites(trove.db, "items");
      expect((await trove.api("/api/collections", { method: "POST", json: { name: "Taken" } })).status).toBe(200);
      await expect(refuseWrites(trove.db, "items", ["no_such_table"])).rejects.toThrow("items.no_such_table");
    } finally {
      await trove.stop();
    }
  }, 60_000);
});

describe("spawnEmbedded", () => {
  test("every save acknowledged before a SIGKILL in a burst is there after the restart", async () => {
    const trove = await spawnEmbedded();
    try {
      // The lock file names the process the test signals: Trove itself, not a wrapper.
      expect((await Bun.file(`${trove.dataDir}/trove.lock`).text()).trim()).toBe(String(trove.proc.pid));
      const acknowledged: { id: string; url: string }[] = [];
      let killing = false;
      let failure: unknown;
      const writers = Array.from({ length: 3 }, async (_, w) => {
        for (let i = 0; ; i++) {
          const url = `https://kill.example.test/${w}/${i}`;
          try {
            const r = await save(trove, url);
            if (r.status === 200) acknowledged.push({ id: r.body.id, url });
          } catch (err) {
            if (!killing) failure ??= err;
            return; // after the kill: the connection died with the process, not acknowledged
          }
        }
      });
      await eventually(() => {
        if (failure) throw failure;
        return acknowledged.length >= 30;
      }, 60_000);
      killing = true;
      const code = await trove.kill("SIGKILL");
      await Promise.all(writers);
      expect(trove.proc.signalCode).toBe("SIGKILL");
      expect(code).not.toBe(0);

      await trove.restart();
      for (const { id, url } of acknowledged) {
        const res = await trove.api(`/api/items/${id}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ url, contentAvailable: true });
      }
    } finally {
      await trove.stop();
    }
  }, 180_000);
});

const nats = natsServerBinary();
describe.skipIf(!nats)(`startNatsServer${nats ? "" : " (skipped: no nats-server binary; set TROVE_NATS_SERVER)"}`, () => {
  test("a bus serves again after its server is SIGKILLed and restarted, and JetStream's store outlasts a restart", async () => {
    const server = await startNatsServer();
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const open = () => NatsBus.connect({ url: server.url, prefix, log: createLogger("silent") });
    const bus = await open();
    try {
      bus.serve("echo", (payload) => payload);
      expect(await bus.request("echo", { n: 1 })).toEqual({ n: 1 });

      expect(await server.kill("SIGKILL")).not.toBe(0);
      await expect(bus.request("echo", { n: 2 }, { timeoutMs: 200 })).rejects.toThrow();
      await server.restart();
      // The client reconnects on its own and subscribes again.
      await eventually(async () => (await bus.request("echo", { n: 3 }, { timeoutMs: 500 }).catch(() => null)) !== null, 30_000);

      await bus.publish("thing.made", { n: 4 }, { id: "event-4" });
      await server.kill("SIGTERM");
      await server.restart();
      const got: string[] = [];
      const sub = await bus.consume({ durable: "check", filter: "thing.>" }, async (e) => {
        got.push(e.id);
      });
      await eventually(() => got.includes("event-4"), 30_000);
      await sub.stop();
    } finally {
      await bus.close().catch(() => {});
      await dropNatsNamespace(server.url, prefix).catch(() => {});
      await server.stop();
    }
  }, 120_000);
});

const databaseUrl = process.env.DATABASE_URL;
describe.skipIf(!databaseUrl)(`terminateBackends${databaseUrl ? "" : " (skipped: DATABASE_URL is not set)"}`, () => {
  test("cuts every connection to the database, and only to it", async () => {
    const scratch = await createScratchDatabase("cut");
    const held = new pg.Client({ connectionString: scratch });
    const elsewhere = new pg.Client({ connectionString: databaseUrl });
    held.on("error", () => {});
    try {
      await held.connect();
      await elsewhere.connect();
      expect(await terminateBackends(scratch)).toBe(1);
      await expect(held.query("select 1")).rejects.toThrow();
      expect((await elsewhere.query("select 1 as one")).rows[0].one).toBe(1);
      // A new connection gets in.
      const fresh = new pg.Client({ connectionString: scratch });
      await fresh.connect();
      expect((await fresh.query("select 1 as one")).rows[0].one).toBe(1);
      await fresh.end();
    } finally {
      await held.end().catch(() => {});
      await elsewhere.end().catch(() => {});
      await dropScratchDatabase(scratch);
    }
  }, 60_000);
});
