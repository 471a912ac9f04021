// The worker pool with real Bun worker threads running test/tasks.ts. Nothing is mocked; no test measures time:
// each waits for a state (tasks holding, workers replaced) and asserts outcomes and counts.
import { afterEach, describe, expect, test } from "bun:test";
import {
  PoolBusyError,
  PoolClosedError,
  TaskFailedError,
  WorkerCrashedError,
  WorkerPool,
  WorkerTimeoutError,
} from "./index.ts";
import { ACTIVE, GATE, MAX } from "./test/tasks.ts";

const script = new URL("./test/tasks.ts", import.meta.url);
const pools: WorkerPool[] = [];

function pool(size: number, maxQueue?: number, idleMs?: number): WorkerPool {
  const p = new WorkerPool({ script, size, maxQueue, idleMs });
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** Shared state for `hold` tasks: active count, highest active count, gate (0 closed, 1 open). */
function holdState() {
  const shared = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const state = new Int32Array(shared);
  return {
    shared,
    active: () => Atomics.load(state, ACTIVE),
    max: () => Atomics.load(state, MAX),
    open: () => {
      Atomics.store(state, GATE, 1);
      Atomics.notify(state, GATE);
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 3_000) throw new Error("condition not reached");
    await Bun.sleep(5);
  }
}

describe("WorkerPool", () => {
  test("runs named tasks in worker threads and returns their results", async () => {
    const p = pool(2);
    expect(await p.run("echo", { a: [1, 2], b: "x" })).toEqual({ a: [1, 2], b: "x" });
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => p.run<number>("double", n)))).toEqual([2, 4, 6, 8, 10]);
    expect(p.stats()).toMatchObject({ size: 2, running: 0, queued: 0 });
    expect(p.stats().workers).toBeLessThanOrEqual(2);
  });

  test("with idleMs, an idle worker stops and gives its thread back; the next task starts a fresh one", async () => {
    const p = pool(1, undefined, 50);
    expect(await p.run<number>("count", null)).toBe(1);
    await until(() => p.stats().workers === 0);
    // A new thread: what the last one held (here its counter; in Trove a parsed page, the embedding model) is gone.
    expect(await p.run<number>("count", null)).toBe(1);
  });

  test("with idleMs, a worker busy for longer than that is not stopped", async () => {
    const p = pool(1, undefined, 20);
    const hold = holdState();
    const held = p.run<number>("hold", hold.shared);
    await until(() => hold.active() === 1);
    await Bun.sleep(200);
    expect(p.stats()).toMatchObject({ workers: 1, running: 1 });
    hold.open();
    expect(await held).toBe(1);
  });

  test("without idleMs, workers stay for the next task", async () => {
    const p = pool(1);
    expect(await p.run<number>("count", null)).toBe(1);
    expect(await p.run<number>("count", null)).toBe(2);
    expect(p.stats().workers).toBe(1);
  });

  test("never runs more tasks at once than its size; the rest wait their turn", async () => {
    const p = pool(2);
    const hold = holdState();
    const runs = Array.from({ length: 6 }, () => p.run<number>("hold", hold.shared));
    await until(() => hold.active() === 2);
    expect(p.stats()).toMatchObject({ workers: 2, running: 2, queued: 4 });
    hold.open();
    const seen = await Promise.all(runs);
    expect(hold.max()).toBe(2);
    expect(Math.max(...seen)).toBe(2);
    expect(p.stats()).toMatchObject({ running: 0, queued: 0 });
  });

  test("a task past its deadline rejects with WorkerTimeoutError and the pool keeps serving", async () => {
    const p = pool(1);
    const err = await p.run("spin", null, { deadlineMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerTimeoutError);
    expect(err).toMatchObject({ task: "spin", deadlineMs: 50 });
    expect(await p.run("echo", "after the timeout")).toBe("after the timeout");
    expect(p.stats().workers).toBe(1);
  });

  test("a deadline only bites on a task that outlives it", async () => {
    const p = pool(1);
    expect(await p.run("double", 21, { deadlineMs: 60_000 })).toBe(42);
  });

  test("a worker that dies mid-task rejects that task with WorkerCrashedError; the next task gets a new worker", async () => {
    const p = pool(1);
    const exited = await p.run("exit", null).catch((e: unknown) => e);
    expect(exited).toBeInstanceOf(WorkerCrashedError);
    expect((exited as Error).message).toContain("exited with code 7");
    const thrown = await p.run("throwLater", null).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(WorkerCrashedError);
    expect((thrown as Error).message).toContain("thrown outside the task");
    expect(await p.run("echo", "recovered")).toBe("recovered");
  });

  test("an error thrown by a task reaches the caller with its name, message and fields; the worker stays", async () => {
    const p = pool(1);
    const err = await p.run("fail", null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskFailedError);
    expect(err).toMatchObject({ task: "fail", errorName: "Error", message: "the task gave up", data: { code: "E_CODED", attempt: 3 } });
    const unknown = await p.run("no-such-task", null).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(TaskFailedError);
    expect((unknown as Error).message).toContain('unknown task "no-such-task"');
    const unclonable = await p.run("unclonable", null).catch((e: unknown) => e);
    expect(unclonable).toBeInstanceOf(TaskFailedError);
    expect(await p.run("echo", 1)).toBe(1);
  });

  test("input that cannot cross threads fails that task only", async () => {
    const p = pool(1);
    const err = await p.run("echo", { fn: () => 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskFailedError);
    expect(await p.run("echo", 2)).toBe(2);
  });

  test("a full queue refuses more work at once with PoolBusyError; a task given to a starting worker is not waiting", async () => {
    const p = pool(1, 1);
    const hold = holdState();
    const running = p.run("hold", hold.shared);
    const waiting = p.run("echo", "waited");
    const refused = await p.run("echo", "refused").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PoolBusyError);
    hold.open();
    expect(await running).toBe(1);
    expect(await waiting).toBe("waited");
  });

  test("close rejects running and waiting tasks with PoolClosedError, and any later task", async () => {
    const p = pool(1);
    const hold = holdState();
    const outcomes = [p.run("hold", hold.shared), p.run("echo", 1), p.run("echo", 2)].map((r) => r.catch((e: unknown) => e));
    await until(() => hold.active() === 1);
    await p.close();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toBeInstanceOf(PoolClosedError);
    expect(await p.run("echo", 3).catch((e: unknown) => e)).toBeInstanceOf(PoolClosedError);
    expect(p.stats()).toMatchObject({ workers: 0, running: 0, queued: 0 });
  });

  test("a script that cannot load fails the task instead of retrying forever", async () => {
    const p = new WorkerPool({ script: new URL("./test/does-not-exist.ts", import.meta.url), size: 1 });
    pools.push(p);
    expect(await p.run("echo", 1).catch((e: unknown) => e)).toBeInstanceOf(WorkerCrashedError);
  });
});

describe("priority", () => {
  // Linux is where the threads' priority is set (and where CI runs); elsewhere the option does nothing.
  test.skipIf(process.platform !== "linux")("a pool given a nice value runs its threads that many steps below the process, and leaves the process's other threads as they were", async () => {
    const background = new WorkerPool({ script, size: 1, nice: 10 });
    pools.push(background);
    const ordinary = pool(1);
    const before = (await ordinary.run<{ thread: number; process: number }>("nice", null)).process;
    expect(await background.run("nice", null)).toEqual({ thread: Math.min(19, before + 10), process: before });
    expect(await ordinary.run("nice", null)).toEqual({ thread: before, process: before });
  });

  test("a nice value outside 1-19 is refused", () => {
    for (const nice of [0, 20, -1, 2.5]) expect(() => new WorkerPool({ script, size: 1, nice })).toThrow(RangeError);
  });
});
