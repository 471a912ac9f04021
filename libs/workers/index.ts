// @trove/workers: a small pool of worker threads running named tasks with deadlines (see pool.ts), and the
// worker-side serveTasks that a registry script calls.
export { WorkerPool, type PoolOptions, type PoolStats, type RunOptions } from "./pool.ts";
export { serveTasks, type Task, type TaskRegistry } from "./serve.ts";
export {
  PoolBusyError,
  PoolClosedError,
  TaskFailedError,
  WorkerCrashedError,
  WorkerPoolError,
  WorkerTimeoutError,
} from "./errors.ts";
