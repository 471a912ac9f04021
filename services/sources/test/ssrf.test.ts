// Real: every service in-process with private networks NOT allowed (TROVE_ALLOW_PRIVATE_NETWORK=0), names resolved
// by the test resolver (localhost is loopback, every other name fails): feed and site addresses pass the SSRF guard
// before a source is created.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loopbackOrigins, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_ALLOW_PRIVATE_NETWORK: "0" });
});
afterAll(() => trove.stop());

test("a feed or site address on loopback, in every spelling, is refused and no source is created", async () => {
  for (const origin of loopbackOrigins) {
    for (const json of [{ type: "rss", feedUrl: `${origin}/feed.xml` }, { type: "rss", input: `${origin}/` }]) {
      const res = await trove.api("/api/sources", { method: "POST", json });
      expect({ json, status: res.status, error: (await res.json()).error }).toEqual({ json, status: 400, error: "url_not_allowed" });
    }
  }
  expect((await (await trove.api("/api/sources")).json()).count).toBe(0);
});
