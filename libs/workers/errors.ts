// What a pool task can fail with, one class per cause, so callers decide by type (a timeout is not a bug).

/** Base of every error the pool rejects a task with. */
export class WorkerPoolError extends Error {
  constructor(
    readonly task: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The task ran past its deadline; its worker was terminated and replaced. */
export class WorkerTimeoutError extends WorkerPoolError {
  constructor(
    task: string,
    readonly deadlineMs: number,
  ) {
    super(task, `task ${task} ran longer than ${deadlineMs} ms`);
  }
}

/** The worker died while running the task (uncaught error, exit, out of memory); it was replaced. */
export class WorkerCrashedError extends WorkerPoolError {
  constructor(task: string, why: string) {
    super(task, `the worker running ${task} stopped: ${why}`);
  }
}

/** The pool was closed before the task finished. */
export class PoolClosedError extends WorkerPoolError {
  constructor(task: string) {
    super(task, `the worker pool is closed; ${task} did not run to the end`);
  }
}

/** Too many tasks were already waiting; this one was refused without running. */
export class PoolBusyError extends WorkerPoolError {
  constructor(task: string, waiting: number) {
    super(task, `${waiting} tasks are already waiting for a worker`);
  }
}

/** The task itself threw (or returned something that cannot cross threads); `data` holds the error's own fields. */
export class TaskFailedError extends WorkerPoolError {
  constructor(
    task: string,
    readonly errorName: string,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(task, message);
  }
}
