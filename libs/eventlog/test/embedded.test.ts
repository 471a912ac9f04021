// Real: PGlite (from the migrated template) and PostgreSQL at DATABASE_URL (a scratch database per run), each
// with the in-process bus: consumers read the log from its table. A process's crash on PostgreSQL closes its own
// pool; PGlite has one process, whose successor takes the consumer leases over at start.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@trove/bus";
import { inTransaction, openDatabase, type Database } from "@trove/db";
import { createLogger } from "@trove/log";
import { sql } from "kysely";
import { freshPglite } from "@trove/testing/pglite.ts";
import { createScratchDatabase, dropScratchDatabase } from "@trove/testing/postgres.ts";
import { EventLog, migrateEventLog } from "../index.ts";
import { collector, eventLogContract, recordAll, space, until, type Proc, type Stack } from "./contract.ts";

const quiet = createLogger("silent");

function memoryProc(database: Database, events: EventLog, bus: MemoryBus, own: boolean): Proc {
  return {
    events,
    bus,
    db: database.db,
    crash: async () => {
      if (own) await database.db.destroy().catch(() => {});
    },
    close: async () => {
      await events.stop();
      await bus.close();
      if (own) await database.close().catch(() => {});
    },
  };
}

async function pgliteStack(): Promise<Stack> {
  const database = await freshPglite();
  await migrateEventLog(database.db);
  return {
    db: database.db,
    open: async (opts = {}) => {
      const bus = new MemoryBus(quiet);
      const events = new EventLog({ db: database.db, bus, log: quiet, soleProcess: true, ...opts });
      await events.start();
      return memoryProc(database, events, bus, false);
    },
    teardown: () => database.close(),
  };
}

async function postgresStack(): Promise<Stack> {
  const url = await createScratchDatabase("eventlog");
  const root = await openDatabase({ databaseUrl: url });
  await migrateEventLog(root.db);
  return {
    db: root.db,
    open: async (opts = {}) => {
      const own = await openDatabase({ databaseUrl: url, poolSize: 4 });
      const bus = new MemoryBus(quiet);
      const events = new EventLog({ db: own.db, bus, log: quiet, ...opts });
      await events.start();
      return memoryProc(own, events, bus, true);
    },
    teardown: async () => {
      await root.close();
      await dropScratchDatabase(url).catch(() => {});
    },
  };
}

eventLogContract("pglite with the in-process bus", { concurrentTransactions: false, jetstream: false }, pgliteStack);
if (process.env.DATABASE_URL) {
  eventLogContract("postgres with the in-process bus", { concurrentTransactions: true, jetstream: false }, postgresStack);
} else {
  console.log("SKIPPED event log on postgres with the in-process bus: DATABASE_URL is not set");
  describe.skip("event log on postgres with the in-process bus (skipped: DATABASE_URL is not set)", () => test("the event log contract", () => {}));
}

test("made on an installation whose items kept their own positioned log, the log numbers on after that log's last position", async () => {
  const database = await freshPglite();
  try {
    // What an installation from before the shared log has: the items' own log, its cursors up to position 41.
    await sql`create schema items`.execute(database.db);
    await sql`create table items.item_events (seq bigserial primary key, position int8)`.execute(database.db);
    await sql`insert into items.item_events (position) values (40), (41), (null)`.execute(database.db);
    await migrateEventLog(database.db);
    const bus = new MemoryBus(quiet);
    const events = new EventLog({ db: database.db, bus, log: quiet, soleProcess: true });
    const p = memoryProc(database, events, bus, false);
    const ids = await recordAll(p, [
      { stream: "items", subject: "items.event.item.created", accountId: "a", data: {} },
      { stream: "items", subject: "items.event.item.updated", accountId: "a", data: {} },
    ]);
    await events.assignPositions();
    const page = await events.page("items", "a", 0, 10);
    expect(page.map((e) => [e.id, e.position])).toEqual([
      [ids[0]!, 42],
      [ids[1]!, 43],
    ]);
    // A cursor taken at 41 before the move walks on to exactly these events.
    expect((await events.page("items", "a", 41, 10)).map((e) => e.id)).toEqual(ids);
    await bus.close();
  } finally {
    await database.close();
  }
});

describe("event log read from its table", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await pgliteStack();
  });
  afterAll(() => stack.teardown());

  test("a commit wakes the process's consumers: nothing waits for the idle look", async () => {
    const s = space();
    const p = await stack.open({ readerIdleMs: 3_600_000 });
    const seen = collector();
    const sub = await p.events.consume({ name: s.consumer("woken"), filter: s.filter }, seen.handler);
    // The first look at start finds nothing; the next one an hour later would be too late for this test.
    await until(async () => (await p.events.lag())[s.consumer("woken")] === 0, "the first look");
    const [id] = await recordAll(p, [{ stream: "test", subject: s.subject("poke"), accountId: s.account, data: {} }]);
    await until(() => seen.ids().length > 0, "the event, woken by its commit");
    expect(seen.ids()).toEqual([id!]);
    await sub.stop();
    await p.close();
  });

  test("a batch of many events takes a handful of handler calls, and the lag counts down to zero", async () => {
    const s = space();
    const p = await stack.open();
    await inTransaction(p.db, (uow) =>
      p.events.recordMany(
        uow,
        Array.from({ length: 2_500 }, (_, i) => ({ stream: "test", subject: s.subject("bulk"), accountId: s.account, data: { i } })),
      ),
    );
    const seen = collector();
    const sub = await p.events.consume({ name: s.consumer("bulk"), filter: s.filter, batch: 500 }, seen.handler);
    await until(() => seen.ids().length === 2_500, "every event");
    expect(seen.batches.length).toBe(5);
    expect(seen.batches.flat().map((e) => e.data.i)).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    await until(async () => (await p.events.lag())[s.consumer("bulk")] === 0, "no lag");
    await sub.stop();
    await p.close();
  });
});
