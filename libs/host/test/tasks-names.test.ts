// The pool's worker script names each task without importing its module (libs/host/tasks.ts); the names must be the
// ones the callers send.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { embedTaskName } from "@trove/embed/task.ts";
import { extractTaskName } from "@trove/extract/task-input.ts";
import { feedParseTaskName } from "@trove/feeds/task.ts";
import { entriesTaskName, feedLinkTaskName, mailTaskName } from "@trove/intake/tasks.ts";
import { importParseTaskName } from "@trove/portability";

test("the worker script serves every task under the name its callers send", () => {
  const script = readFileSync(join(import.meta.dir, "..", "tasks.ts"), "utf8");
  const served = [...script.matchAll(/^\s+"?([\w.]+)"?: lazy\(/gm)].map((m) => m[1]);
  expect(served.sort()).toEqual([embedTaskName, extractTaskName, feedParseTaskName, entriesTaskName, feedLinkTaskName, mailTaskName, importParseTaskName].sort());
});
