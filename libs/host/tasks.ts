// The worker script of the process's pool (startHost): every CPU-heavy task a service may run, by name. Each
// worker thread loads this module and nothing else. Later work is added here the same way. Extraction and
// embedding come from their task modules, not their packages' indexes: those bring the main thread's pooled
// extractor and embedder, and with them the metrics registry, which a worker has no use for.
import { embedTask, embedTaskName } from "@trove/embed/task.ts";
import { extractTask, extractTaskName } from "@trove/extract/task.ts";
import { feedParseTask, feedParseTaskName } from "@trove/feeds";
import { entriesTask, entriesTaskName, feedLinkTask, feedLinkTaskName, mailTask, mailTaskName } from "@trove/intake";
import { importParseTask, importParseTaskName } from "@trove/portability";
import { serveTasks } from "@trove/workers";

serveTasks({
  [extractTaskName]: extractTask,
  [embedTaskName]: embedTask,
  [feedParseTaskName]: feedParseTask,
  [importParseTaskName]: importParseTask,
  [mailTaskName]: mailTask,
  [entriesTaskName]: entriesTask,
  [feedLinkTaskName]: feedLinkTask,
});
