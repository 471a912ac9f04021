// A worker script for embed.test.ts: the embed task over a model that cannot load (as when its weights are missing).
import { serveTasks } from "@trove/workers";
import { embedTaskName, makeEmbedTask } from "../task.ts";

serveTasks({
  [embedTaskName]: makeEmbedTask(async () => {
    throw new Error("ENOENT: model.json does not exist");
  }),
});
