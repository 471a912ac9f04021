// Real: the Wakeup itself. Its timers are a hand-driven clock (a test fires them), so nothing here sleeps or
// depends on how fast the machine is; each step is a promise the test settles.
import { describe, expect, test } from "bun:test";
import { Wakeup, backoffMs, type WakeupStep, type WakeupTimers } from "../index.ts";

/** Timers that fire only when the test says so; waiting for the next one to be set is how a test sees a run end. */
class HandClock implements WakeupTimers {
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  private next = 1;
  private waiters: ((t: { id: number; ms: number }) => void)[] = [];

  set(fn: () => void, ms: number): number {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    for (const w of this.waiters.splice(0)) w({ id, ms });
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** The delay of the next timer set. */
  nextSet(): Promise<{ id: number; ms: number }> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  fire(id: number): void {
    const t = this.pending.get(id);
    if (!t) throw new Error(`timer ${id} is not pending`);
    this.pending.delete(id);
    t.fn();
  }
}

/** A step whose runs the test holds and settles one at a time. */
function heldStep() {
  const runs: { resolve: (next: number | null) => void; reject: (err: Error) => void }[] = [];
  let started: (() => void)[] = [];
  const step: WakeupStep = () =>
    new Promise((resolve, reject) => {
      runs.push({ resolve, reject });
      for (const s of started.splice(0)) s();
    });
  return {
    step,
    runs,
    /** Resolves once `n` runs have started. */
    started: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (runs.length >= n ? resolve() : started.push(check));
        check();
      }),
  };
}

const silent = { warn: () => {} };

describe("Wakeup", () => {
  test("pokes during a run make exactly one more run, after it", async () => {
    const clock = new HandClock();
    const held = heldStep();
    const w = new Wakeup(held.step, { log: silent, what: "test", timers: clock });
    w.poke();
    await held.started(1);
    w.poke();
    w.poke();
    w.poke();
    expect(held.runs).toHaveLength(1); // one run at a time
    held.runs[0]!.resolve(null);
    await held.started(2);
    const ended = clock.nextSet();
    held.runs[1]!.resolve(5_000);
    expect((await ended).ms).toBe(5_000); // the second run ended and asked to run again unpoked
    expect(held.runs).toHaveLength(2);
    await w.stop();
  });

  test("the step's delay runs it again unpoked; null waits for a poke; a poke runs at once and drops the timer", async () => {
    const clock = new HandClock();
    const held = heldStep();
    const w = new Wakeup(held.step, { log: silent, what: "test", timers: clock });
    w.poke();
    await held.started(1);
    let set = clock.nextSet();
    held.runs[0]!.resolve(1_000);
    const timer = await set;
    expect(timer.ms).toBe(1_000);
    clock.fire(timer.id);
    await held.started(2);
    set = clock.nextSet();
    held.runs[1]!.resolve(60_000);
    const idle = await set;
    w.poke(); // before the idle timer fires
    await held.started(3);
    expect(clock.pending.has(idle.id)).toBe(false);
    held.runs[2]!.resolve(null);
    await w.stop();
    expect(clock.pending.size).toBe(0);
    expect(held.runs).toHaveLength(3);
  });

  test("failures back off exponentially with jitter, up to the cap, and a success starts over", async () => {
    const clock = new HandClock();
    const held = heldStep();
    const warnings: { retryInMs: number }[] = [];
    const log = { warn: (obj: object) => void warnings.push(obj as { retryInMs: number }) };
    const opts = { firstBackoffMs: 100, maxBackoffMs: 1_000, jitter: 0.5 };
    // Draws alternate 0 (the whole nominal wait) and 0.5 (a quarter off, with jitter 0.5).
    let draws = 0;
    const w = new Wakeup(held.step, { log, what: "test", timers: clock, random: () => (draws++ % 2 === 0 ? 0 : 0.5), ...opts });
    w.poke();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      await held.started(i + 1);
      const set = clock.nextSet();
      held.runs[i]!.reject(new Error("database down"));
      const t = await set;
      delays.push(t.ms);
      clock.fire(t.id);
    }
    // Nominal 100, 200, 400, 800, then the cap of 1000.
    expect(delays).toEqual([100, 150, 400, 600, 1_000, 750]);
    expect(warnings.map((w) => w.retryInMs)).toEqual(delays);
    await held.started(7);
    let set = clock.nextSet();
    held.runs[6]!.resolve(2_000);
    expect((await set).ms).toBe(2_000);
    w.poke();
    await held.started(8);
    set = clock.nextSet();
    held.runs[7]!.reject(new Error("down again"));
    expect((await set).ms).toBe(100); // the count of failures in a row started over
    await w.stop();
  });

  test("every backoff lies within its bounds", () => {
    const opts = { firstBackoffMs: 250, maxBackoffMs: 30_000, jitter: 0.2 };
    for (let failures = 1; failures <= 40; failures++) {
      const nominal = Math.min(30_000, 250 * 2 ** (failures - 1));
      for (const random of [0, 0.25, 0.5, 0.75, 0.9999]) {
        const ms = backoffMs(failures, opts, () => random);
        expect(ms).toBeLessThanOrEqual(nominal);
        expect(ms).toBeGreaterThanOrEqual(Math.floor(nominal * 0.8));
      }
    }
    // Spread: the same failure count does not give the same wait for different draws.
    expect(backoffMs(3, opts, () => 0)).not.toBe(backoffMs(3, opts, () => 0.9));
  });

  test("stop waits for the run in progress, then nothing runs again", async () => {
    const clock = new HandClock();
    const held = heldStep();
    const w = new Wakeup(held.step, { log: silent, what: "test", timers: clock });
    w.poke();
    await held.started(1);
    w.poke(); // would run once more
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    expect(w.stopped).toBe(true);
    await Promise.resolve();
    expect(stopped).toBe(false); // the run in progress is awaited
    held.runs[0]!.resolve(1_000);
    await stopping;
    w.poke();
    expect(held.runs).toHaveLength(1); // neither the pending poke, nor the step's delay, nor a later poke ran
    expect(clock.pending.size).toBe(0);
  });
});
