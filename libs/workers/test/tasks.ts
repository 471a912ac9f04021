// The worker script of the pool tests: a registry of small tasks that behave well, block, spin, throw or die.
import { readFileSync, readlinkSync } from "node:fs";
import { serveTasks } from "../serve.ts";

/** Slots of the Int32Array over the SharedArrayBuffer that `hold` tasks share with the test. */
export const ACTIVE = 0;
export const MAX = 1;
export const GATE = 2;

class CodedError extends Error {
  readonly code = "E_CODED";
  readonly attempt = 3;
}

/** Tasks this thread has run: a fresh thread starts at 0 (the state a stopped worker gave back). */
let runs = 0;

serveTasks({
  count: () => ++runs,
  // This thread's nice value and the process's main thread's, as Linux reports them (field 19 of stat).
  nice: () => {
    const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    const tid = readlinkSync("/proc/thread-self").split("/").at(-1);
    return { thread: niceOf(readFileSync(`/proc/self/task/${tid}/stat`, "utf8")), process: niceOf(readFileSync("/proc/self/stat", "utf8")) };
  },
  echo: (input: unknown) => input,
  double: async (n: number) => n * 2,
  // Counts itself active, records the highest count seen, and blocks until the test opens the gate.
  hold: (shared: SharedArrayBuffer) => {
    const state = new Int32Array(shared);
    const active = Atomics.add(state, ACTIVE, 1) + 1;
    for (let max = Atomics.load(state, MAX); active > max; max = Atomics.load(state, MAX)) {
      if (Atomics.compareExchange(state, MAX, max, active) === max) break;
    }
    Atomics.wait(state, GATE, 0);
    Atomics.sub(state, ACTIVE, 1);
    return active;
  },
  spin: () => {
    for (;;) {
      // Synchronous and endless: only terminating the thread stops it.
    }
  },
  fail: () => {
    throw new CodedError("the task gave up");
  },
  exit: () => process.exit(7),
  throwLater: () => {
    setTimeout(() => {
      throw new Error("thrown outside the task");
    }, 0);
    return new Promise(() => {});
  },
  unclonable: () => () => "a function cannot cross threads",
});
