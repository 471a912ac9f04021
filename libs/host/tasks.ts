// The worker script of the process's pool (startHost): every CPU-heavy task a service may run, by name. Each task's
// module is imported on the thread's first task of that name, so a thread that only extracts pages never loads
// the mail parser, the feed parser or the import formats (and the pool stops idle threads, which lets them go).
// The names are the ones each package exports beside its task (extractTaskName, embedTaskName, ...); they are
// written out here because importing them would import the task modules. A wrong name fails every service test
// that runs that task ("unknown task").
import { serveTasks } from "@trove/workers";

type Task = (input: never) => unknown;

/** A task whose module is imported when it first runs. */
function lazy(load: () => Promise<Task>): (input: unknown) => Promise<unknown> {
  let task: Promise<Task> | undefined;
  return async (input) => {
    const loading = (task ??= load());
    // A failed import is tried again by the next task rather than kept.
    loading.catch(() => {
      if (task === loading) task = undefined;
    });
    return (await loading)(input as never);
  };
}

serveTasks({
  extract: lazy(async () => (await import("@trove/extract/task.ts")).extractTask),
  embed: lazy(async () => (await import("@trove/embed/task.ts")).embedTask),
  parseFeed: lazy(async () => (await import("@trove/feeds/task.ts")).feedParseTask),
  "portability.importParse": lazy(async () => (await import("@trove/portability")).importParseTask),
  "intake.mail": lazy(async () => (await import("@trove/intake/tasks.ts")).mailTask),
  "intake.entries": lazy(async () => (await import("@trove/intake/tasks.ts")).entriesTask),
  "intake.feedLink": lazy(async () => (await import("@trove/intake/tasks.ts")).feedLinkTask),
});
