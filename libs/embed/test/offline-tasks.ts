// A worker script for embed.test.ts: the real embed task in a thread whose fetch only records and fails, so a test
// can ask (task "fetchCalls") whether loading the model and embedding tried the network.
import { serveTasks } from "@trove/workers";
import { embedTask, embedTaskName } from "../task.ts";

const calls: string[] = [];
globalThis.fetch = Object.assign(
  async (input: unknown): Promise<Response> => {
    calls.push(String(input instanceof Request ? input.url : input));
    throw new Error("the network is off in this worker");
  },
  { preconnect: () => {} },
) as typeof fetch;

serveTasks({
  [embedTaskName]: embedTask,
  fetchCalls: () => calls,
});
