// Messages between the pool (main thread) and a worker thread.

/** The worker's argument that carries the pool's `nice` (serveTasks reads it before the first task). */
export const niceFlag = "--trove-thread-nice=";

/** Pool -> worker: run one task. */
export interface RunMessage {
  type: "run";
  id: number;
  task: string;
  input: unknown;
}

/** A thrown error as it crosses threads: its name, message and own primitive fields. */
export interface SerializedError {
  name: string;
  message: string;
  data: Record<string, unknown>;
}

/** Worker -> pool: loaded and waiting for work, or one task's outcome. */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "result"; id: number; ok: true; output: unknown }
  | { type: "result"; id: number; ok: false; error: SerializedError };
