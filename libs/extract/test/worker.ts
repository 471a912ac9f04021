// Worker script for the pooled-extractor tests: the extraction task alone, as libs/host/tasks.ts serves it.
import { serveTasks } from "@trove/workers";
import { extractTask, extractTaskName } from "../task.ts";

serveTasks({ [extractTaskName]: extractTask });
