// Worker script for the import task tests: the import parse task alone, as libs/host/tasks.ts serves it.
import { serveTasks } from "@trove/workers";
import { importParseTask, importParseTaskName } from "../import/index.ts";

serveTasks({ [importParseTaskName]: importParseTask });
