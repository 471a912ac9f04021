// The work queue's behaviour, run on each database (queue.test.ts): real tables, real claims, two workers on one
// table (on PostgreSQL each with its own connection pool, as two processes have). Time is a clock the test moves,
// handlers block on gates the test opens, so nothing here sleeps or depends on the machine's speed; the few tests
// of the worker's own loop wait for an effect with `eventually`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { inTransaction, type Database } from "@trove/db";
import { createLogger } from "@trove/log";
import { eventually } from "@trove/testing";
import { defineQueue, failNow, LeaseLost, migrateQueue, QueueSet, retryAt, type QueueDefinition, type WakeBus } from "../index.ts";

export interface SuiteTarget {
  open(): Promise<Database>;
  /** Another connection to the same database, as a second process has (PGlite: the same one). */
  second(first: Database): Promise<Database>;
  /** Two processes' buses (the same in-process bus, or two NATS connections on one prefix), and their closing. */
  buses(): Promise<{ a: WakeBus; b: WakeBus; close(): Promise<void> }>;
}

const leaseMs = 30_000;
const silent = createLogger("silent");

/** A promise the test settles. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Named gates a handler waits on, and the news that a handler reached one. */
function gates() {
  type Gate = { promise: Promise<void>; resolve: () => void };
  const open = new Map<string, Gate>();
  const reached = new Map<string, Gate>();
  const get = (m: Map<string, Gate>, k: string) => {
    let d = m.get(k);
    if (!d) m.set(k, (d = deferred<void>()));
    return d;
  };
  return {
    /** In a handler: say it got here, then wait for the test. */
    async hold(k: string) {
      get(reached, k).resolve();
      await get(open, k).promise;
    },
    reached: (k: string) => get(reached, k).promise,
    open: (k: string) => get(open, k).resolve(),
  };
}

export function queueSuite(label: string, target: SuiteTarget) {
  describe(`work queue on ${label}`, () => {
    let database: Database;
    let other: Database;
    let db: Kysely<any>;
    let now = 1_000_000_000;
    const clock = () => now;
    let schemas = 0;
    const sets: QueueSet[] = [];

    beforeAll(async () => {
      database = await target.open();
      other = await target.second(database);
      db = database.db;
    });
    afterAll(async () => {
      for (const s of sets) await s.stop(0).catch(() => {});
      if (other !== database) await other?.close();
      await database?.close();
    });

    /** A schema of its own for each test (so counts are the test's alone), with a table for handlers' writes. */
    async function fresh(): Promise<string> {
      const schema = `jobs_${label.replace(/\W/g, "")}_${++schemas}`;
      await migrateQueue(db, schema);
      await sql`create table ${sql.id(schema, "effects")} (job_id text not null, what text not null)`.execute(db);
      return schema;
    }

    function worker(schema: string, o: { second?: boolean; realClock?: boolean; bus?: WakeBus } = {}): QueueSet {
      const set = new QueueSet({
        db: (o.second ? other : database).db,
        schema,
        log: silent,
        leaseMs,
        clock: o.realClock ? Date.now : clock,
        bus: o.bus,
      });
      sets.push(set);
      return set;
    }

    async function effects(schema: string): Promise<{ job_id: string; what: string }[]> {
      const { rows } = await sql<{ job_id: string; what: string }>`select job_id, what from ${sql.id(schema, "effects")} order by what`.execute(db);
      return rows;
    }

    async function payloadOf(schema: string, id: string): Promise<unknown> {
      const { rows } = await sql<{ payload: unknown }>`select payload from ${sql.id(schema, "queue")} where id = ${id}`.execute(db);
      return rows[0]?.payload;
    }

    const effect = async (schema: string, uow: { db: Kysely<any> }, jobId: string, what: string): Promise<void> => {
      await uow.db.insertInto(`${schema}.effects`).values({ job_id: jobId, what }).execute();
    };

    function enqueue<P>(set: QueueSet, def: QueueDefinition<P> | string, payload: P, opts = {}): Promise<string> {
      return inTransaction(db, (uow) => set.enqueue(uow, def, payload, opts));
    }

    test("a job enqueued in a unit of work runs once, after the commit; one whose unit of work rolled back never runs", async () => {
      const schema = await fresh();
      const seen: unknown[] = [];
      const def = defineQueue<{ n: number }>({ name: "basic", maxAttempts: 3, run: async (job) => void seen.push(job.payload) });
      const a = worker(schema);
      a.register(def);
      const id = await enqueue(a, def, { n: 1 });
      await inTransaction(db, async (uow) => {
        await a.enqueue(uow, def, { n: 2 });
        throw new Error("the change is undone");
      }).catch(() => {});
      expect(await a.runDue()).toBe(1);
      expect(seen).toEqual([{ n: 1 }]);
      expect(await a.status(id)).toMatchObject({ state: "done", attempts: 1, lastError: null });
      expect(await a.runDue()).toBe(0);
    });

    test("two workers never run one job at once, and every job runs exactly once", async () => {
      const schema = await fresh();
      const g = gates();
      const starts: string[] = [];
      const def = defineQueue({
        name: "shared",
        maxAttempts: 3,
        concurrency: 10,
        run: async (job) => {
          starts.push(job.id);
          await g.hold("all");
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      const ids = await inTransaction(db, async (uow) => Promise.all(Array.from({ length: 20 }, (_, i) => a.enqueue(uow, def, { i }))));
      const runs = Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
      await eventually(() => starts.length === 20);
      g.open("all");
      const counts = await runs;
      expect(counts.reduce((x, y) => x + y, 0)).toBe(20);
      expect([...starts].sort()).toEqual([...ids].sort());
      for (const id of ids) expect((await a.status(id))!.state).toBe("done");
    });

    test("a long job keeps its lease by renewal; once it runs out the job is taken over, counted, and the first worker's writes are refused", async () => {
      const schema = await fresh();
      const g = gates();
      const outcomes: string[] = [];
      const def = defineQueue({
        name: "long",
        maxAttempts: 3,
        run: async (job, ctx) => {
          await g.hold(`run ${job.attempt}`);
          try {
            await ctx.complete((uow) => effect(schema, uow, job.id, `completed by run ${job.attempt}`));
            outcomes.push(`run ${job.attempt} completed`);
          } catch (err) {
            outcomes.push(`run ${job.attempt}: ${(err as Error).name}`);
            throw err;
          }
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      const id = await enqueue(a, def, {});
      const first = a.runDue();
      await g.reached("run 1");
      now += 20_000;
      await a.renewLeases(); // the lease now ends 30 s from here
      now += 20_000; // past the first lease, within the renewed one
      expect(await b.runDue()).toBe(0);
      now += 20_000; // past the renewed lease: this worker is presumed dead
      const second = b.runDue();
      await g.reached("run 2");
      g.open("run 1");
      await first;
      g.open("run 2");
      await second;
      expect(outcomes).toEqual(["run 1: LeaseLost", "run 2 completed"]);
      expect(await effects(schema)).toEqual([{ job_id: id, what: "completed by run 2" }]);
      expect(await a.status(id)).toMatchObject({ state: "done", attempts: 2 });
    });

    test("jobs ending in one turn are marked done together: each keeps its writes; one whose lease was taken writes nothing", async () => {
      const schema = await fresh();
      const g = gates();
      let started = 0;
      const outcomes: string[] = [];
      const def = defineQueue<{ n: number }>({
        name: "together",
        maxAttempts: 3,
        concurrency: 10,
        run: async (job, ctx) => {
          started++;
          await g.hold("all");
          try {
            await ctx.complete((uow) => effect(schema, uow, job.id, `done ${job.payload.n}`));
            outcomes.push(`${job.payload.n} done`);
          } catch (err) {
            outcomes.push(`${job.payload.n}: ${(err as Error).name}`);
            throw err;
          }
        },
      });
      const a = worker(schema);
      a.register(def);
      const ids = await inTransaction(db, (uow) => Promise.all([1, 2, 3, 4].map((n) => a.enqueue(uow, def, { n }))));
      const run = a.runDue();
      await eventually(() => started === 4);
      // Another worker holds the third now (its claim, as a takeover makes it), unknown to this one.
      await sql`update ${sql.id(schema, "queue")} set lease_token = 'another worker' where id = ${ids[2]!}`.execute(db);
      g.open("all");
      expect(await run).toBe(4);
      expect([...outcomes].sort()).toEqual(["1 done", "2 done", "3: LeaseLost", "4 done"]);
      expect((await effects(schema)).map((e) => e.what)).toEqual(["done 1", "done 2", "done 4"]);
      expect((await Promise.all(ids.map((id) => a.status(id)))).map((st) => st!.state)).toEqual(["done", "done", "running", "done"]);
    });

    test("a job whose lease is lost sees its signal abort at the next renewal", async () => {
      const schema = await fresh();
      const g = gates();
      let signal: AbortSignal | undefined;
      const def = defineQueue({
        name: "watched",
        maxAttempts: 3,
        run: async (job, ctx) => {
          signal = ctx.signal;
          await g.hold(`run ${job.attempt}`);
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      await enqueue(a, def, {});
      const first = a.runDue();
      await g.reached("run 1");
      const firstSignal = signal!;
      now += leaseMs + 1;
      const second = b.runDue();
      await g.reached("run 2");
      expect(firstSignal.aborted).toBe(false);
      await a.renewLeases();
      expect(firstSignal.aborted).toBe(true);
      expect(firstSignal.reason).toBeInstanceOf(LeaseLost);
      g.open("run 1");
      g.open("run 2");
      await Promise.all([first, second]);
    });

    test("a job taken over at its last attempt fails as interrupted, its failure hook in the same transaction", async () => {
      const schema = await fresh();
      const g = gates();
      let runs = 0;
      const def = defineQueue({
        name: "fragile",
        maxAttempts: 2,
        run: async (job) => {
          runs++;
          await g.hold(`run ${job.attempt}`);
        },
        failed: async (uow, job, reason) => void (await effect(schema, uow, job.id, `failed: ${reason}`)),
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      const id = await enqueue(a, def, {});
      const first = a.runDue();
      await g.reached("run 1");
      now += leaseMs + 1;
      const second = b.runDue();
      await g.reached("run 2");
      now += leaseMs + 1;
      expect(await a.runDue()).toBe(1); // the claim, which fails the job instead of running it a third time
      expect(runs).toBe(2);
      expect(await a.status(id)).toMatchObject({ state: "failed", attempts: 2, lastError: "interrupted 2 times before it could finish" });
      expect(await effects(schema)).toEqual([{ job_id: id, what: "failed: interrupted 2 times before it could finish" }]);
      g.open("run 1");
      g.open("run 2");
      await Promise.all([first, second]);
      expect((await a.status(id))!.state).toBe("failed"); // the dead runs' ends are refused
    });

    test("a failure hook that throws undoes the failure with it: the job is not failed and the hook's writes are gone", async () => {
      const schema = await fresh();
      const def = defineQueue({
        name: "hook-throws",
        maxAttempts: 1,
        run: async () => {
          throw failNow("no good");
        },
        failed: async (uow, job) => {
          await effect(schema, uow, job.id, "half-written");
          throw new Error("the hook broke");
        },
      });
      const a = worker(schema);
      a.register(def);
      const id = await enqueue(a, def, {});
      await a.runDue();
      expect((await a.status(id))!.state).toBe("running"); // its lease runs out and another claim tries again
      expect(await effects(schema)).toEqual([]);
    });

    test("a failing job runs again after a backoff with jitter that doubles, up to its limit, then fails with its reason", async () => {
      const schema = await fresh();
      const attempts: number[] = [];
      const failures: string[] = [];
      const def = defineQueue({
        name: "flaky",
        maxAttempts: 3,
        backoff: { firstMs: 1_000, maxMs: 60_000, jitter: 0.2 },
        run: async (job) => {
          attempts.push(job.attempt);
          throw new Error(`the peer is down (run ${job.attempt})`);
        },
        failed: async (_uow, _job, reason) => void failures.push(reason),
      });
      const a = worker(schema);
      a.register(def);
      const id = await enqueue(a, def, {});
      expect(await a.runDue()).toBe(1);
      let s = (await a.status(id))!;
      expect(s).toMatchObject({ state: "queued", attempts: 1, lastError: "the peer is down (run 1)" });
      expect(s.runAt).toBeGreaterThanOrEqual(now + 800);
      expect(s.runAt).toBeLessThanOrEqual(now + 1_000);
      expect(await a.runDue({ now: s.runAt - 1 })).toBe(0);
      now = s.runAt;
      expect(await a.runDue()).toBe(1);
      s = (await a.status(id))!;
      expect(s).toMatchObject({ state: "queued", attempts: 2 });
      expect(s.runAt).toBeGreaterThanOrEqual(now + 1_600);
      expect(s.runAt).toBeLessThanOrEqual(now + 2_000);
      now = s.runAt;
      expect(await a.runDue()).toBe(1);
      expect(await a.status(id)).toMatchObject({ state: "failed", attempts: 3, lastError: "the peer is down (run 3)" });
      expect(attempts).toEqual([1, 2, 3]);
      expect(failures).toEqual(["the peer is down (run 3)"]);
      // A failed job keeps its reason, not its payload (a capture's could be a whole page).
      expect(await payloadOf(schema, id)).toBeNull();
    });

    test("a handler may name the time of its next run, fail at once, or have its queue's schedule decide", async () => {
      const schema = await fresh();
      const requeued: unknown[] = [];
      const told = defineQueue({
        name: "told",
        maxAttempts: 5,
        run: async (job) => {
          if (job.attempt === 1) throw retryAt(now + 5_000, "busy: retry after 5 s");
          throw failNow("the page is gone");
        },
        requeued: async (_uow, _job, info) => void requeued.push(info),
      });
      const scheduled = defineQueue({
        name: "scheduled",
        maxAttempts: 5,
        schedule: (attempt) => (attempt === 1 ? 250 : null),
        run: async () => {
          throw new Error("refused");
        },
      });
      const a = worker(schema);
      a.register(told);
      a.register(scheduled);
      const t = await enqueue(a, told, {});
      const sc = await enqueue(a, scheduled, {});
      await a.runDue();
      expect(await a.status(t)).toMatchObject({ state: "queued", runAt: now + 5_000, lastError: "busy: retry after 5 s" });
      expect(requeued).toEqual([{ reason: "busy: retry after 5 s", runAt: now + 5_000 }]);
      expect(await a.status(sc)).toMatchObject({ state: "queued", runAt: now + 250 });
      now += 5_000;
      await a.runDue();
      expect(await a.status(t)).toMatchObject({ state: "failed", attempts: 2, lastError: "the page is gone" });
      expect(await a.status(sc)).toMatchObject({ state: "failed", attempts: 2, lastError: "refused" });
    });

    test("a group runs at most its limit at once across workers, and holds up no other group", async () => {
      const schema = await fresh();
      const g = gates();
      const active = new Map<string, number>();
      const most = new Map<string, number>();
      const def = defineQueue<{ host: string; n: number }>({
        name: "polite",
        maxAttempts: 3,
        concurrency: 10,
        group: { of: (p) => p.host, limit: 2 },
        run: async (job) => {
          const host = job.payload.host;
          active.set(host, (active.get(host) ?? 0) + 1);
          most.set(host, Math.max(most.get(host) ?? 0, active.get(host)!));
          await g.hold(`${host} ${job.payload.n}`);
          active.set(host, active.get(host)! - 1);
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      const ids = await inTransaction(db, async (uow) => {
        const slow: string[] = [];
        for (let n = 1; n <= 5; n++) slow.push(await a.enqueue(uow, def, { host: "slow.test", n }));
        await a.enqueue(uow, def, { host: "other.test", n: 1 });
        return slow;
      });
      const first = a.runDue();
      await Promise.all([g.reached("slow.test 1"), g.reached("slow.test 2"), g.reached("other.test 1")]);
      expect(await b.runDue()).toBe(0); // slow.test is at its limit everywhere; other.test's one job runs
      g.open("other.test 1");
      g.open("slow.test 1");
      await eventually(async () => (await a.status(ids[0]!))!.state === "done");
      const second = b.runDue(); // the free slot of slow.test, taken by the other worker
      await g.reached("slow.test 3");
      for (let n = 2; n <= 5; n++) g.open(`slow.test ${n}`);
      await Promise.all([first, second]);
      await a.runDue();
      expect(most.get("slow.test")).toBe(2);
      expect((await a.counts()).queued + (await a.counts()).running).toBe(0);
    });

    test("a group's gap holds its next job until the gap has passed since the last one ended", async () => {
      const schema = await fresh();
      const def = defineQueue<{ n: number }>({
        name: "gapped",
        maxAttempts: 3,
        concurrency: 4,
        group: { of: () => "host.test", limit: 1, gapMs: 2_000 },
        run: async () => {},
      });
      const a = worker(schema);
      a.register(def);
      const first = await enqueue(a, def, { n: 1 });
      const second = await enqueue(a, def, { n: 2 });
      expect(await a.runDue()).toBe(1);
      expect((await a.status(first))!.state).toBe("done");
      expect(await a.runDue({ now: now + 1_999 })).toBe(0);
      expect(await a.runDue({ now: now + 2_000 })).toBe(1);
      expect((await a.status(second))!.state).toBe("done");
    });

    test("politeness: one job per host at a time, the next a gap after the last ended, other hosts meanwhile; a vanished runner's job is taken again once its lease ran out", async () => {
      const schema = await fresh();
      const g = gates();
      const ran: string[] = [];
      const def = defineQueue<{ host: string; item: string }>({
        name: "page-fetch",
        maxAttempts: 5,
        concurrency: 4,
        group: { of: (p) => p.host, limit: 1, gapMs: 2_000 },
        run: async (job) => {
          ran.push(`${job.payload.item} run ${job.attempt}`);
          await g.hold(`${job.payload.item} run ${job.attempt}`);
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      await inTransaction(db, async (uow) => {
        for (const [host, item] of [["a.test", "i1"], ["a.test", "i2"], ["b.test", "i3"]] as const) await a.enqueue(uow, def, { host, item });
      });
      const t0 = now;
      const vanished = a.runDue(); // takes i1 and i3; the runner of i3 is never heard of again
      await Promise.all([g.reached("i1 run 1"), g.reached("i3 run 1")]);
      expect(await b.runDue({ now: t0 + 1 })).toBe(0); // both hosts busy, however many jobs wait
      now = t0 + 100;
      g.open("i1 run 1");
      await eventually(async () => (await b.counts()).running === 1); // i1's end is written
      expect(await b.runDue({ now: t0 + 2_099 })).toBe(0); // a.test rests for the gap after i1 ended
      g.open("i2 run 1");
      expect(await b.runDue({ now: t0 + 2_100 })).toBe(1);
      expect(await b.runDue({ now: t0 + leaseMs })).toBe(0); // i3's lease holds to its last millisecond
      g.open("i3 run 2");
      expect(await b.runDue({ now: t0 + leaseMs + 1 })).toBe(1);
      expect([...ran].sort()).toEqual(["i1 run 1", "i2 run 1", "i3 run 1", "i3 run 2"]);
      g.open("i3 run 1");
      await vanished;
    });

    test("a paused group starts nothing and its jobs are not counted due; resumed with dueNow, its held jobs run at once", async () => {
      const schema = await fresh();
      const ran: number[] = [];
      const def = defineQueue<{ n: number }>({
        name: "pausable",
        maxAttempts: 3,
        concurrency: 4,
        group: { limit: 4 },
        run: async (job) => void ran.push(job.payload.n),
      });
      const a = worker(schema);
      a.register(def);
      await inTransaction(db, async (uow) => {
        await a.pauseGroup(uow, "pausable", "endpoint-1");
        await a.enqueue(uow, def, { n: 1 }, { group: "endpoint-1" });
        await a.enqueue(uow, def, { n: 2 }, { group: "endpoint-1", runAt: now + 60_000 });
        await a.enqueue(uow, def, { n: 3 }, { group: "endpoint-2" });
      });
      expect(await a.counts()).toMatchObject({ queued: 3, due: 1 }); // endpoint-2's; endpoint-1's due one is held
      expect(await a.runDue()).toBe(1);
      expect(ran).toEqual([3]);
      expect(await a.counts()).toMatchObject({ queued: 2, due: 0 });
      await inTransaction(db, (uow) => a.resumeGroup(uow, "pausable", "endpoint-1", { dueNow: true }));
      expect(await a.runDue()).toBe(2);
      expect(ran.sort()).toEqual([1, 2, 3]);
    });

    test("a grouped queue refuses a job with no group, which no claim would ever find", async () => {
      const schema = await fresh();
      const def = defineQueue<{ host: string | null }>({ name: "hosts", maxAttempts: 3, group: { of: (p) => p.host, limit: 1 }, run: async () => {} });
      const a = worker(schema);
      a.register(def);
      await expect(enqueue(a, def, { host: null })).rejects.toThrow("keeps its jobs in groups");
      expect(await a.counts()).toMatchObject({ queued: 0 });
    });

    test("failing a group fails its open jobs with the reason and their hooks; the worker of a running one loses it", async () => {
      const schema = await fresh();
      const g = gates();
      let signal: AbortSignal | undefined;
      let ending: unknown;
      const def = defineQueue<{ n: number }>({
        name: "deliveries",
        maxAttempts: 5,
        group: { limit: 1 },
        run: async (job, ctx) => {
          signal = ctx.signal;
          await g.hold("running");
          ending = await ctx.complete().catch((err: unknown) => err);
        },
        failed: async (uow, job, reason) => void (await effect(schema, uow, job.id, `${job.payload.n}: ${reason}`)),
      });
      const a = worker(schema);
      a.register(def);
      await inTransaction(db, async (uow) => {
        for (const n of [1, 2, 3]) await a.enqueue(uow, def, { n }, { group: "endpoint-1" });
        await a.enqueue(uow, def, { n: 4 }, { group: "endpoint-2", runAt: now + 60_000 });
      });
      const running = a.runDue();
      await g.reached("running");
      const failed = await inTransaction(db, (uow) => a.failGroup(uow, "deliveries", "endpoint-1", "endpoint_disabled"));
      expect(failed).toBe(3);
      expect(signal!.aborted).toBe(true);
      g.open("running");
      await running;
      expect(ending).toBeInstanceOf(Error);
      expect((await effects(schema)).map((e) => e.what)).toEqual(["1: endpoint_disabled", "2: endpoint_disabled", "3: endpoint_disabled"]);
      expect(await a.counts()).toMatchObject({ queued: 1, running: 0, failed: 3 });
      // The hooks saw the payloads; the failed rows keep none.
      const { rows } = await sql<{ payload: unknown }>`select payload from ${sql.id(schema, "queue")} where state = 'failed'`.execute(db);
      expect(rows.map((r) => r.payload)).toEqual([null, null, null]);
    });

    test("one open job per key: another enqueue moves it sooner and adds nothing; cancelling removes it", async () => {
      const schema = await fresh();
      const def = defineQueue<{ source: string }>({ name: "poll", maxAttempts: 3, run: async () => {} });
      const a = worker(schema);
      a.register(def);
      const id = await enqueue(a, def, { source: "s1" }, { key: "s1", runAt: now + 60_000 });
      expect(await enqueue(a, def, { source: "s1" }, { key: "s1", runAt: now + 120_000 })).toBe(id);
      expect((await a.status(id))!.runAt).toBe(now + 60_000);
      expect(await enqueue(a, def, { source: "s1" }, { key: "s1" })).toBe(id);
      expect((await a.status(id))!.runAt).toBe(now);
      expect(await a.counts()).toMatchObject({ queued: 1 });
      expect(await a.runDue()).toBe(1);
      const next = await enqueue(a, def, { source: "s1" }, { key: "s1", runAt: now + 60_000 });
      expect(next).not.toBe(id);
      expect(await inTransaction(db, (uow) => a.cancel(uow, "poll", "s1"))).toBe(true);
      expect(await a.status(next)).toBeUndefined();
      expect(await a.runDue({ now: now + 60_000 })).toBe(0);
    });

    test("a job claimed by the request that began its work ends through the adopted work", async () => {
      const schema = await fresh();
      const work = deferred<string>();
      const def = defineQueue<{ url: string }>({
        name: "capture",
        maxAttempts: 3,
        run: async () => {
          throw new Error("not run: the claim's own work ends it");
        },
      });
      const a = worker(schema);
      a.register(def);
      const claim = await inTransaction(db, (uow) => a.enqueueClaimed(uow, def, { url: "http://page.test/" }));
      expect(await a.status(claim.job.id)).toMatchObject({ state: "running", attempts: 1 });
      expect(await a.runDue()).toBe(0);
      claim.adopt(work.promise.then((text) => claim.complete((uow) => effect(schema, uow, claim.job.id, text))));
      work.resolve("the page's content");
      await eventually(async () => (await a.status(claim.job.id))!.state === "done");
      expect(await effects(schema)).toEqual([{ job_id: claim.job.id, what: "the page's content" }]);
    });

    test("a claimed job whose process died is taken over after its lease and run by its queue's handler", async () => {
      const schema = await fresh();
      const runs: number[] = [];
      const def = defineQueue<{ url: string }>({
        name: "capture",
        maxAttempts: 3,
        run: async (job, ctx) => {
          runs.push(job.attempt);
          await ctx.complete((uow) => effect(schema, uow, job.id, `captured in run ${job.attempt}`));
        },
      });
      const a = worker(schema);
      const b = worker(schema, { second: true });
      a.register(def);
      b.register(def);
      const claim = await inTransaction(db, (uow) => a.enqueueClaimed(uow, def, { url: "http://page.test/" }));
      const dead = deferred();
      claim.adopt(dead.promise.then(() => claim.complete((uow) => effect(schema, uow, claim.job.id, "late"))));
      now += leaseMs + 1;
      expect(await b.runDue()).toBe(1);
      expect(runs).toEqual([2]);
      dead.resolve();
      await eventually(() => claim.signal.aborted);
      expect(await effects(schema)).toEqual([{ job_id: claim.job.id, what: "captured in run 2" }]);
    });

    test("adopted work that throws is run again later by the queue's handler", async () => {
      const schema = await fresh();
      const def = defineQueue<{ url: string }>({
        name: "capture",
        maxAttempts: 3,
        backoff: { firstMs: 1_000, jitter: 0 },
        run: async (job, ctx) => ctx.complete((uow) => effect(schema, uow, job.id, `run ${job.attempt}`)),
      });
      const a = worker(schema);
      a.register(def);
      const claim = await inTransaction(db, (uow) => a.enqueueClaimed(uow, def, { url: "http://page.test/" }));
      claim.adopt(Promise.reject(new Error("the worker pool was closed")));
      await eventually(async () => (await a.status(claim.job.id))!.state === "queued");
      expect(await a.status(claim.job.id)).toMatchObject({ attempts: 1, runAt: now + 1_000, lastError: "the worker pool was closed" });
      expect(await a.runDue({ now: now + 1_000 })).toBe(1);
      expect(await effects(schema)).toEqual([{ job_id: claim.job.id, what: "run 2" }]);
    });

    test("a process that starts alone on its data queues again what its dead self left running, the interrupted run counted", async () => {
      const schema = await fresh();
      const g = gates();
      const def = defineQueue({ name: "resumable", maxAttempts: 2, run: async (job) => g.hold(`run ${job.attempt}`) });
      const once = defineQueue({ name: "once", maxAttempts: 1, run: async (job) => g.hold(`once ${job.attempt}`) });
      const dead = worker(schema);
      dead.register(def);
      dead.register(once);
      const id = await enqueue(dead, def, {});
      const onceId = await enqueue(dead, once, {});
      const deadRuns = dead.runDue();
      await Promise.all([g.reached("run 1"), g.reached("once 1")]);
      const fresh2 = worker(schema, { second: true });
      fresh2.register(def);
      fresh2.register(once);
      expect(await fresh2.recover()).toBe(2);
      expect(await fresh2.status(id)).toMatchObject({ state: "queued", attempts: 1 });
      g.open("run 2");
      expect(await fresh2.runDue()).toBe(2);
      expect(await fresh2.status(id)).toMatchObject({ state: "done", attempts: 2 });
      expect(await fresh2.status(onceId)).toMatchObject({ state: "failed", lastError: "interrupted 1 times before it could finish" });
      g.open("run 1");
      g.open("once 1");
      await deadRuns;
      expect(await fresh2.status(id)).toMatchObject({ state: "done", attempts: 2 });
    });

    test("counts: waiting, due, running, leases run out, failed", async () => {
      const schema = await fresh();
      const g = gates();
      const def = defineQueue({ name: "counted", maxAttempts: 1, concurrency: 2, run: async (job) => g.hold(job.id) });
      const bad = defineQueue({ name: "bad", maxAttempts: 1, run: async () => Promise.reject(new Error("no")) });
      const a = worker(schema);
      a.register(def);
      a.register(bad);
      await enqueue(a, bad, {});
      await a.runDue();
      const [r1, r2] = [await enqueue(a, def, {}), await enqueue(a, def, {})];
      const running = a.runDue();
      await Promise.all([g.reached(r1), g.reached(r2)]);
      const later = await enqueue(a, def, {}, { runAt: now + 60_000 });
      const due = await enqueue(a, def, {}, { runAt: now - 1 });
      expect(await a.counts()).toEqual({ queued: 2, due: 1, running: 2, leaseExpired: 0, failed: 1 });
      now += leaseMs + 1;
      expect(await a.counts()).toMatchObject({ running: 2, leaseExpired: 2 });
      for (const id of [r1, r2, due, later]) g.open(id);
      await running;
    });

    test("stop gives running jobs their grace, then gives the rest back: queued, due now, the attempt returned", async () => {
      const schema = await fresh();
      const g = gates();
      const requeued: unknown[] = [];
      const runs: number[] = [];
      let signal: AbortSignal | undefined;
      const quick = defineQueue({ name: "quick", maxAttempts: 3, run: async () => g.hold("quick") });
      const stubborn = defineQueue({
        name: "stubborn",
        maxAttempts: 3,
        run: async (job, ctx) => {
          runs.push(job.attempt);
          signal = ctx.signal;
          await g.hold("stubborn");
        },
        requeued: async (_uow, _job, info) => void requeued.push(info),
      });
      const a = worker(schema);
      a.register(quick);
      const q = await enqueue(a, quick, {});
      const running = a.runDue();
      await g.reached("quick");
      let stopped = false;
      const stopping = a.stop(3_600_000).then(() => (stopped = true));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(stopped).toBe(false);
      g.open("quick");
      await stopping;
      await running;
      expect(await a.status(q)).toMatchObject({ state: "done" });

      const b = worker(schema);
      b.register(stubborn);
      const s = await enqueue(b, stubborn, {});
      const stuck = b.runDue();
      await g.reached("stubborn");
      await b.stop(0);
      expect(signal!.aborted).toBe(true);
      expect(await b.status(s)).toMatchObject({ state: "queued", attempts: 0, runAt: now });
      expect(requeued).toEqual([{ reason: null, runAt: now }]);
      g.open("stubborn");
      await stuck;
      expect(await b.status(s)).toMatchObject({ state: "queued", attempts: 0 });

      // The run given back was not an attempt: the next start runs it as its first.
      const c = worker(schema);
      c.register(stubborn);
      expect(await c.runDue()).toBe(1);
      expect(runs).toEqual([1, 1]);
      expect(await c.status(s)).toMatchObject({ state: "done", attempts: 1 });
    });

    test("a started worker runs a job soon after the commit that enqueued it, though its tick is an hour", async () => {
      const schema = await fresh();
      const def = defineQueue({ name: "woken", maxAttempts: 3, tickMs: 3_600_000, run: async () => {} });
      const a = worker(schema, { realClock: true });
      a.register(def);
      a.start();
      const first = await enqueue(a, def, {});
      await eventually(async () => (await a.status(first))!.state === "done", 20_000);
      const second = await enqueue(a, def, {});
      await eventually(async () => (await a.status(second))!.state === "done", 20_000);
      await a.stop(0);
    });

    test("an enqueue in one process wakes the worker of another through the bus", async () => {
      const schema = await fresh();
      const { a: busA, b: busB, close } = await target.buses();
      try {
        const def = defineQueue({ name: "remote", maxAttempts: 3, tickMs: 3_600_000, run: async () => {} });
        const enqueuer = worker(schema, { realClock: true, bus: busA });
        enqueuer.register({ ...def, concurrency: 0 });
        const runner = worker(schema, { second: true, realClock: true, bus: busB });
        runner.register(def);
        runner.start();
        enqueuer.start();
        const first = await enqueue(enqueuer, "remote", {});
        await eventually(async () => (await runner.status(first))!.state === "done", 20_000);
        const second = await enqueue(enqueuer, "remote", {});
        await eventually(async () => (await runner.status(second))!.state === "done", 20_000);
        await runner.stop(0);
        await enqueuer.stop(0);
      } finally {
        await close();
      }
    });

    test("finished jobs are swept after their keeping time: done after a day, failed after 30 days", async () => {
      const schema = await fresh();
      const def = defineQueue<{ ok: boolean }>({
        name: "kept",
        maxAttempts: 1,
        run: async (job) => {
          if (!job.payload.ok) throw new Error("no");
        },
      });
      const a = worker(schema);
      a.register(def);
      const done = await enqueue(a, def, { ok: true });
      const failed = await enqueue(a, def, { ok: false });
      await a.runDue();
      now += 24 * 3_600_000 + 1;
      const b = worker(schema);
      b.register({ ...def, concurrency: 0 });
      b.start();
      await eventually(async () => (await b.status(done)) === undefined);
      expect((await b.status(failed))!.state).toBe("failed");
      await b.stop(0);
      now += 30 * 24 * 3_600_000;
      const c = worker(schema);
      c.register({ ...def, concurrency: 0 });
      c.start();
      await eventually(async () => (await c.status(failed)) === undefined);
      await c.stop(0);
    });
  });
}

