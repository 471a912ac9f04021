// The background fetch of imported pages, through the gateway (PGlite + the in-process bus, or PostgreSQL + NATS):
// a fetch that meets a failing items service is tried again later, not failed for good. The politeness rule (one
// fetch per host at a time, a gap between two) is the work queue's group rule, tested in libs/jobs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acceptWrites, eventually, refuseWrites, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";
import { waitForJob } from "./helpers.ts";

let trove: TestTrove;
let pages: PageServer;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_IMPORT_HOST_GAP_MS: "10", TROVE_JOBS_TICK_MS: "100" });
});
afterAll(async () => {
  await acceptWrites(trove.db, "items").catch(() => {});
  await trove.stop();
  pages.stop();
});

const fetchCounts = async (id: string): Promise<{ pending: number; fetched: number; failed: number }> => {
  const res = await trove.api(`/api/imports/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()).import.fetch;
};

describe("background fetch", () => {
  test("a page fetch that meets a failing items service is tried again, and fetched once the service works", async () => {
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="${pages.url}/held" ADD_DATE="1500000000">Held page</A>\n</DL><p>\n`;
    const res = await trove.api("/api/imports?format=netscape_html", { method: "POST", body: file, headers: { "content-type": "text/html" } });
    expect(res.status).toBe(200);
    const id = (await res.json()).import.id as string;
    expect(await waitForJob(trove, "imports", id)).toMatchObject({ status: "completed", created: 1 });

    // The fetch has reached the page, which answers only when the test says: by then the items service cannot
    // store what it captured (its items table refuses writes), so the capture fails with a fault of ours.
    await pages.reached("/held");
    await refuseWrites(trove.db, "items", ["items"]);
    pages.release();
    await eventually(async () => {
      const failedForGood = (await fetchCounts(id)).failed > 0;
      const triedAgainLater = trove.logs.some((l) => l.queue === "exports.page-fetch" && l.msg === "job will run again");
      return failedForGood || triedAgainLater;
    }, 30_000);

    // The service works again: the fetch is tried again and stores the page.
    await acceptWrites(trove.db, "items");
    let counts = await fetchCounts(id);
    await eventually(async () => (counts = await fetchCounts(id)).pending === 0, 60_000);
    expect(counts).toEqual({ pending: 0, fetched: 1, failed: 0 });
    const items = (await (await trove.api("/api/items?limit=100")).json()).items as any[];
    expect(items.find((i) => i.url === `${pages.url}/held`)).toMatchObject({ contentAvailable: true, contentExtractError: null });
  });
});
