// The worker side: a worker script is a registry of named tasks that calls serveTasks(tasks). Each task takes
// one structured-clonable input and returns (or resolves to) one structured-clonable output.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { niceFlag, type RunMessage, type SerializedError, type WorkerMessage } from "./protocol.ts";

export type Task = (input: never) => unknown;
export type TaskRegistry = Record<string, Task>;

interface WorkerScope {
  onmessage: ((event: MessageEvent<RunMessage>) => void) | null;
  postMessage(message: WorkerMessage): void;
}

/** Serves `tasks` to the pool that started this worker thread; call it once, at the top of the worker script. */
export function serveTasks(tasks: TaskRegistry): void {
  const scope = globalThis as unknown as WorkerScope;
  lowerPriority();
  scope.onmessage = (event) => {
    void run(scope, tasks, event.data);
  };
  scope.postMessage({ type: "ready" });
}

async function run(scope: WorkerScope, tasks: TaskRegistry, msg: RunMessage): Promise<void> {
  try {
    const task = Object.hasOwn(tasks, msg.task) ? tasks[msg.task] : undefined;
    if (!task) throw new Error(`unknown task "${msg.task}"`);
    const output = await (task as (input: unknown) => unknown)(msg.input);
    // Inside the try: an output that cannot be cloned is reported as the task's failure.
    scope.postMessage({ type: "result", id: msg.id, ok: true, output });
  } catch (err) {
    scope.postMessage({ type: "result", id: msg.id, ok: false, error: serializeError(err) });
  }
}

/**
 * This thread's priority lowered by the pool's steps of nice, when it asked for that. Linux schedules threads on
 * their own: /proc/thread-self names this thread's id, and setpriority on it leaves the process's other threads as
 * they are. Elsewhere (or where it is refused) the thread keeps the process's priority: slower to yield, never wrong.
 */
function lowerPriority(): void {
  const flag = process.argv.find((a) => a.startsWith(niceFlag));
  if (!flag) return;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + Number(flag.slice(niceFlag.length))));
  } catch {
    // Not Linux, or not allowed: see above.
  }
}

function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err), data: {} };
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) data[key] = value;
  }
  return { name: err.name, message: err.message, data };
}
