// Feed parsing as a worker-pool task (libs/host/tasks.ts serves it): a large or hostile feed costs a worker
// thread and a deadline, never the service's event loop.
import { parseFeedText } from "./normalise.ts";
import type { Feed } from "./shape.ts";

export { feedParseTaskName } from "./shape.ts";

export function feedParseTask(input: { text: string }): Feed {
  return parseFeedText(input.text);
}
