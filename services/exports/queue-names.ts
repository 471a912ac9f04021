// The exports service's queues by name, and what their jobs carry: known to the code that enqueues (the services,
// the runners) and to the definitions that run them (queues.ts).
export const queueNames = { export: "export", import: "import", pageFetch: "page-fetch", expiry: "export-expiry" } as const;

/** Export, import and expiry jobs name their job row (an export or import job's queue id is the row's id too). */
export interface JobPayload {
  jobId: string;
}

/** One page an import left to fetch; `host` is its politeness group. */
export interface PageFetchPayload {
  jobId: string;
  itemId: string;
  host: string;
}
