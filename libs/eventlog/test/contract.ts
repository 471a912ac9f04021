// One contract for the event log on every stack: each test file runs it against a real database and a real bus.
// A "process" is an EventLog with its own connections where the stack has them (PostgreSQL pools, NATS
// connections); a crash cuts them without a stop. Every test uses its own subjects and consumer names, so the tests
// of a file share one log without seeing each other's events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Bus, NatsBus } from "@trove/bus";
import { inTransaction } from "@trove/db";
import { createLogger, type Logger } from "@trove/log";
import { sql, type Kysely } from "kysely";
import type { EventInput, EventLog, EventLogOptions, LoggedEvent } from "../index.ts";

export interface Proc {
  events: EventLog;
  bus: Bus;
  /** This process's own database handle. */
  db: Kysely<any>;
  /** Ends the process's connections without stopping anything (what a SIGKILL leaves behind). */
  crash(): Promise<void>;
  /** A graceful end: the log, then the connections. */
  close(): Promise<void>;
}

export interface Traits {
  /** Two transactions can be open at once (PostgreSQL; PGlite has one connection). */
  concurrentTransactions: boolean;
  /** Consumers are JetStream durables. */
  jetstream: boolean;
}

export interface Stack {
  /** The shared database, for the test's own reads and writes. */
  db: Kysely<any>;
  /** A process on the shared database; the log is started. */
  open(opts?: Partial<EventLogOptions>): Promise<Proc>;
  teardown(): Promise<void>;
}

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await Bun.sleep(10);
  }
}

/** A logger whose lines the test reads. */
export function recordingLogger(): { log: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const log = createLogger("warn", {}, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

let counter = 0;
/** A fresh subject space and account for one test. */
export function space() {
  const tok = `t${Date.now().toString(36)}${(counter++).toString(36)}`;
  return {
    tok,
    account: `acct-${tok}`,
    subject: (what: string) => `test.${tok}.${what}`,
    filter: `test.${tok}.>`,
    consumer: (what: string) => `${tok}-${what}`,
  };
}

export async function recordAll(proc: Proc, events: EventInput[]): Promise<string[]> {
  return inTransaction(proc.db, (uow) => proc.events.recordMany(uow, events));
}

/** A handler that keeps what it was handed, batch by batch. */
export function collector() {
  const batches: LoggedEvent[][] = [];
  return {
    batches,
    handler: async (events: LoggedEvent[]) => void batches.push(events),
    ids: () => batches.flat().map((e) => e.id),
  };
}

export function eventLogContract(label: string, traits: Traits, makeStack: () => Promise<Stack>) {
  describe(`event log on ${label}`, () => {
    let stack: Stack;
    let proc: Proc;
    const extra: Proc[] = [];
    const open = async (opts?: Partial<EventLogOptions>) => {
      const p = await stack.open(opts);
      extra.push(p);
      return p;
    };
    beforeAll(async () => {
      stack = await makeStack();
      proc = await stack.open();
    });
    afterAll(async () => {
      for (const p of extra) await p.close().catch(() => {});
      await proc?.close();
      await stack?.teardown();
    });

    test("a consumer is handed each committed event of its filter once, in batches, in position order, with position", async () => {
      const s = space();
      const inputs: EventInput[] = [];
      for (let i = 0; i < 250; i++) {
        const what = i % 5 === 0 ? "other.thing" : "item.made";
        inputs.push({ stream: "test", subject: s.subject(what), accountId: s.account, key: `k${i}`, data: { n: i } });
      }
      const ids = await recordAll(proc, inputs);
      const items = collector();
      const others = collector();
      const subs = [
        await proc.events.consume({ name: s.consumer("items"), filter: `test.${s.tok}.item.*`, batch: 40 }, items.handler),
        await proc.events.consume({ name: s.consumer("others"), filter: `test.${s.tok}.other.>` }, others.handler),
      ];
      await until(() => items.ids().length >= 200 && others.ids().length >= 50, "every event handed over");
      const wantItems = ids.filter((_, i) => i % 5 !== 0);
      expect(items.ids()).toEqual(wantItems);
      expect(others.ids()).toEqual(ids.filter((_, i) => i % 5 === 0));
      expect(Math.max(...items.batches.map((b) => b.length))).toBeLessThanOrEqual(40);
      const handed = items.batches.flat();
      for (let i = 1; i < handed.length; i++) expect(handed[i]!.position).toBeGreaterThan(handed[i - 1]!.position);
      // What a consumer is handed is what a reader pages through: the same envelope, the data with its position.
      const paged = await proc.events.page("test", s.account, 0, 1_000);
      const byId = new Map(paged.map((e) => [e.id, e]));
      for (const e of handed) {
        expect(e).toEqual(byId.get(e.id)!);
        expect(e.data).toEqual({ n: Number(e.key!.slice(1)), position: e.position });
        expect(e.accountId).toBe(s.account);
        expect(e.stream).toBe("test");
      }
      for (const sub of subs) await sub.stop();
    });

    test("an event rolled back is never handed over; one committed is, after its commit", async () => {
      const s = space();
      const seen = collector();
      const sub = await proc.events.consume({ name: s.consumer("c"), filter: s.filter }, seen.handler);
      const err = await inTransaction(proc.db, async (uow) => {
        await proc.events.record(uow, { stream: "test", subject: s.subject("rolled.back"), accountId: s.account, data: {} });
        throw new Error("the change failed");
      }).catch((e: Error) => e);
      expect(err.message).toBe("the change failed");
      let committed = "";
      await inTransaction(proc.db, async (uow) => {
        committed = await proc.events.record(uow, { stream: "test", subject: s.subject("kept"), accountId: s.account, data: {} });
        if (traits.concurrentTransactions) {
          // Outside the transaction it is not there yet: neither numbered nor in a page.
          await proc.events.assignPositions();
          expect(await proc.events.page("test", s.account, 0, 10)).toEqual([]);
        }
      });
      await until(() => seen.ids().length > 0, "the committed event handed over");
      expect(seen.ids()).toEqual([committed]);
      expect((await proc.events.page("test", s.account, 0, 10)).map((e) => e.subject)).toEqual([s.subject("kept")]);
      await sub.stop();
    });

    test("a consumer stopped and started again goes on after what it acknowledged, also in a new process", async () => {
      const s = space();
      const name = s.consumer("resume");
      const first = collector();
      const [a] = await recordAll(proc, [{ stream: "test", subject: s.subject("a"), accountId: s.account, data: {} }]);
      let sub = await proc.events.consume({ name, filter: s.filter }, first.handler);
      await until(() => first.ids().length === 1, "the first event");
      await sub.stop();

      const [b] = await recordAll(proc, [{ stream: "test", subject: s.subject("b"), accountId: s.account, data: {} }]);
      const second = collector();
      sub = await proc.events.consume({ name, filter: s.filter }, second.handler);
      await until(() => second.ids().length === 1, "the event recorded while stopped");
      await sub.stop();

      const later = await open();
      const [c] = await recordAll(later, [{ stream: "test", subject: s.subject("c"), accountId: s.account, data: {} }]);
      const third = collector();
      const sub3 = await later.events.consume({ name, filter: s.filter }, third.handler);
      await until(() => third.ids().length === 1, "the event recorded for the new process");
      expect([first.ids(), second.ids(), third.ids()]).toEqual([[a!], [b!], [c!]]);
      await sub3.stop();
    });

    test("a batch in hand when the process dies is handed over again after the restart", async () => {
      const s = space();
      const name = s.consumer("crash");
      const dying = await open({ readerLeaseMs: 1_000, readerIdleMs: 100 });
      const ids = await recordAll(dying, [
        { stream: "test", subject: s.subject("x"), accountId: s.account, data: {} },
        { stream: "test", subject: s.subject("y"), accountId: s.account, data: {} },
      ]);
      const handed = Promise.withResolvers<void>();
      const never = Promise.withResolvers<void>();
      await dying.events.consume({ name, filter: s.filter, ackWaitMs: 2_000 }, async () => {
        handed.resolve();
        await never.promise;
      });
      await handed.promise;
      await dying.crash();
      const restarted = await open({ readerLeaseMs: 1_000, readerIdleMs: 100 });
      const again = collector();
      const sub = await restarted.events.consume({ name, filter: s.filter, ackWaitMs: 2_000 }, again.handler);
      await until(() => again.ids().length >= 2, "the unacknowledged batch again", 30_000);
      expect(new Set(again.ids())).toEqual(new Set(ids));
      await sub.stop();
      never.resolve();
    });

    test("a failed batch is not acknowledged and is handed over again after the retry delay", async () => {
      const s = space();
      const { log, lines } = recordingLogger();
      const p = await open({ log });
      const [id] = await recordAll(p, [{ stream: "test", subject: s.subject("flaky"), accountId: s.account, data: {} }]);
      const tries: string[][] = [];
      const sub = await p.events.consume({ name: s.consumer("flaky"), filter: s.filter, retryDelaysMs: [40, 80] }, async (events) => {
        tries.push(events.map((e) => e.id));
        if (tries.length <= 2) throw new Error(`refused ${tries.length}`);
      });
      await until(() => tries.length === 3, "a third try");
      expect(tries).toEqual([[id!], [id!], [id!]]);
      const warned = lines.filter((l) => l.msg === "event batch failed; will retry");
      expect(warned.map((l) => [l.attempt, l.err.message])).toEqual([
        [1, "refused 1"],
        [2, "refused 2"],
      ]);
      // The schedule's delay, less at most a fifth of it at random.
      expect(warned[0]!.retryInMs).toBeGreaterThanOrEqual(32);
      expect(warned[0]!.retryInMs).toBeLessThanOrEqual(40);
      expect(warned[1]!.retryInMs).toBeGreaterThanOrEqual(64);
      expect(warned[1]!.retryInMs).toBeLessThanOrEqual(80);
      await until(async () => (await p.events.lag())[s.consumer("flaky")] === 0, "acknowledged after the success");
      await sub.stop();
    });

    test("an event that always fails holds up only itself (and, in the log's order, what follows it); it is never given up on", async () => {
      const s = space();
      const p = await open({ log: recordingLogger().log });
      const ids = await recordAll(
        p,
        [1, 2, 3, 4, 5].map((n) => ({ stream: "test", subject: s.subject(`e${n}`), accountId: s.account, data: { n } })),
      );
      const poison = ids[2]!;
      let healed = false;
      let poisonTries = 0;
      const done: string[] = [];
      const sub = await p.events.consume({ name: s.consumer("poison"), filter: s.filter, retryDelaysMs: [5] }, async (events) => {
        if (!healed && events.some((e) => e.id === poison)) {
          poisonTries++;
          throw new Error("cannot handle this one");
        }
        done.push(...events.map((e) => e.id));
      });
      // Past the five deliveries after which a bus consumer used to give an event up.
      await until(() => poisonTries >= 8 && done.includes(ids[0]!) && done.includes(ids[1]!), "the events before it done, it retried");
      expect(done).not.toContain(poison);
      if (!traits.jetstream) {
        // Read from the table, a consumer keeps the log's order: the events after it wait.
        expect(done).toEqual([ids[0]!, ids[1]!]);
      }
      healed = true;
      await until(() => ids.every((id) => done.includes(id)), "everything once it heals");
      await sub.stop();
    });

    test("stop lets the batch in hand finish and acknowledges it", async () => {
      const s = space();
      const name = s.consumer("stop");
      const [id] = await recordAll(proc, [{ stream: "test", subject: s.subject("held"), accountId: s.account, data: {} }]);
      const handed = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      let finished = false;
      const sub = await proc.events.consume({ name, filter: s.filter }, async () => {
        handed.resolve();
        await release.promise;
        finished = true;
      });
      await handed.promise;
      let stopped = false;
      const stopping = sub.stop().then(() => void (stopped = true));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      expect(finished).toBe(true);
      // Acknowledged: started again, the consumer is not handed it a second time, only what came after.
      const [next] = await recordAll(proc, [{ stream: "test", subject: s.subject("after"), accountId: s.account, data: {} }]);
      const again = collector();
      const sub2 = await proc.events.consume({ name, filter: s.filter }, again.handler);
      await until(() => again.ids().length > 0, "the next event");
      expect(again.ids()).toEqual([next!]);
      expect(again.ids()).not.toContain(id!);
      await sub2.stop();
    });

    if (traits.jetstream) test("the relay publishes recorded events to JetStream, with their position", async () => {
      const s = space();
      const [id] = await recordAll(proc, [{ stream: "test", subject: s.subject("bridged"), accountId: s.account, data: { hello: "bus" } }]);
      const heard: { id: string; data: any }[] = [];
      const sub = await (proc.bus as NatsBus).consume({ durable: s.consumer("bus"), filter: s.filter }, async (e) => void heard.push({ id: e.id, data: e.data }));
      await until(() => heard.length > 0, "the bus consumer hears it");
      const [logged] = await proc.events.page("test", s.account, 0, 1);
      expect(heard).toEqual([{ id: id!, data: { hello: "bus", position: logged!.position } }]);
      await sub.stop();
    });

    if (!traits.jetstream) test("in process nothing is published to the bus: consumers read the log, which numbers the events", async () => {
      const s = space();
      expect("publish" in proc.bus).toBe(false);
      const seen = collector();
      const sub = await proc.events.consume({ name: s.consumer("log"), filter: s.filter }, seen.handler);
      const [id] = await recordAll(proc, [{ stream: "test", subject: s.subject("local"), accountId: s.account, data: {} }]);
      await until(() => seen.ids().length > 0, "the log's consumer");
      expect(seen.ids()).toEqual([id!]);
      expect(seen.batches[0]![0]!.position).toBeGreaterThan(0);
      const row = await stack.db.selectFrom("eventlog.events").select("published_at").where("id", "=", id!).executeTakeFirstOrThrow();
      expect(row.published_at).toBeNull();
      await sub.stop();
    });

    test("reads: pages by stream and account, the position before a time, the head, and whether an event exists", async () => {
      const s = space();
      const base = Date.now();
      const ids = await recordAll(proc, [
        { stream: "test", subject: s.subject("a"), accountId: s.account, key: "one", at: base, data: {} },
        { stream: "test", subject: s.subject("b"), accountId: `${s.account}-other`, key: "one", at: base + 10, data: {} },
        { stream: "elsewhere", subject: s.subject("c"), accountId: s.account, key: "one", at: base + 20, data: {} },
        { stream: "test", subject: s.subject("d"), accountId: s.account, key: "two", at: base + 30, data: {} },
      ]);
      await proc.events.assignPositions();
      const page = await proc.events.page("test", s.account, 0, 10);
      expect(page.map((e) => e.id)).toEqual([ids[0]!, ids[3]!]);
      expect(page.map((e) => e.at)).toEqual([base, base + 30]);
      expect((await proc.events.page("test", s.account, page[0]!.position, 10)).map((e) => e.id)).toEqual([ids[3]!]);
      expect((await proc.events.page("test", s.account, 0, 10, { subjectPrefix: s.subject("d") })).map((e) => e.id)).toEqual([ids[3]!]);
      expect(await proc.events.head("test", s.account)).toBe(page[1]!.position);
      expect(await proc.events.head("test", "nobody")).toBe(0);
      expect(await proc.events.positionBefore("test", s.account, base + 1)).toBe(page[1]!.position - 1);
      expect(await proc.events.positionBefore("test", s.account, base + 1_000)).toBe(page[1]!.position);
      expect(await proc.events.exists(s.account, s.subject("d"), "two")).toBe(true);
      expect(await proc.events.exists(s.account, s.subject("d"), "one")).toBe(false);
      expect(await proc.events.exists(`${s.account}-other`, s.subject("a"), "one")).toBe(false);
    });

    // With one connection (PGlite) transactions cannot interleave: commit order is write order there.
    if (traits.concurrentTransactions) test("positions follow commit order, not write order, and a late commit is not skipped", async () => {
      const s = space();
      const seen = collector();
      const sub = await proc.events.consume({ name: s.consumer("order"), filter: s.filter }, seen.handler);
      const wroteFirst = Promise.withResolvers<void>();
      const commitFirst = Promise.withResolvers<void>();
      let firstId = "";
      const first = inTransaction(proc.db, async (uow) => {
        firstId = await proc.events.record(uow, { stream: "test", subject: s.subject("written.first"), accountId: s.account, data: {} });
        wroteFirst.resolve();
        await commitFirst.promise;
      });
      await wroteFirst.promise;
      const [secondId] = await recordAll(proc, [{ stream: "test", subject: s.subject("written.second"), accountId: s.account, data: {} }]);
      await until(() => seen.ids().length === 1, "the event committed first");
      commitFirst.resolve();
      await first;
      await until(() => seen.ids().length === 2, "the event committed late");
      expect(seen.ids()).toEqual([secondId!, firstId]);
      const page = await proc.events.page("test", s.account, 0, 10);
      expect(page.map((e) => e.id)).toEqual([secondId!, firstId]);
      expect(page[1]!.position).toBeGreaterThan(page[0]!.position);
      await sub.stop();
    });

    test("bad names and subjects are refused before anything is written", async () => {
      const s = space();
      await expect(proc.events.consume({ name: "has.dot", filter: s.filter }, async () => {})).rejects.toThrow("not a consumer name");
      await expect(proc.events.consume({ name: s.consumer("f"), filter: "a.>.b" }, async () => {})).rejects.toThrow("not an event filter");
      const err = await recordAll(proc, [{ stream: "test", subject: "spaces are not tokens", accountId: s.account, data: {} }]).catch((e: Error) => e);
      expect((err as Error).message).toContain("not an event subject");
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from eventlog.events where account_id = ${s.account}`.execute(stack.db);
      expect(rows[0]!.n).toBe(0);
    });

    test("one consumer name runs once per process", async () => {
      const s = space();
      const sub = await proc.events.consume({ name: s.consumer("once"), filter: s.filter }, async () => {});
      await expect(proc.events.consume({ name: s.consumer("once"), filter: s.filter }, async () => {})).rejects.toThrow("already running");
      await sub.stop();
      const again = await proc.events.consume({ name: s.consumer("once"), filter: s.filter }, async () => {});
      await again.stop();
    });
  });
}
