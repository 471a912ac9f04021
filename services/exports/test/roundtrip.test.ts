// Round trip: alice's library exported in each format that carries all of it (JSON, Markdown ZIP), imported into
// a fresh account, and compared field by field through the API: nothing lost on the way out or in.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, type TestTrove } from "@trove/testing";
import { exportFile, seedLibrary, waitForJob } from "./helpers.ts";

const aliceKey = "test-key-alice-0123456789";
const accounts = ["json", "zip"].map((k) => ({ email: `${k}@example.test`, apiKey: `test-key-${k}-roundtrip-0123456789` }));
let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({
    TROVE_RATE_LIMIT: "1000000",
    TROVE_JOBS_TICK_MS: "100",
    TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "alice@example.test", apiKey: aliceKey }, ...accounts]),
  });
  await seedLibrary(trove);
  // Processed state too: it must survive.
  const items = (await (await trove.api("/api/items?status=stashed,flagged,archived&limit=100")).json()).items;
  const rich = items.find((i: any) => i.url.endsWith("/rich"));
  expect((await trove.api("/api/items/mark-processed", { method: "POST", json: { ids: [rich.id] } })).status).toBe(200);
});
afterAll(() => trove.stop());

/** Everything a person sees of their library, by URL, without the ids and times the import necessarily changes. */
async function library(key: string) {
  const items = (await (await trove.api("/api/items?status=stashed,flagged,archived&limit=100", { key })).json()).items as any[];
  const out: Record<string, unknown> = {};
  for (const i of items) {
    const highlights = (await (await trove.api(`/api/items/${i.id}/highlights?limit=100`, { key })).json()).highlights as any[];
    const content = await trove.api(`/api/items/${i.id}/content`, { key });
    out[i.url] = {
      title: i.title,
      status: i.status,
      tags: [...i.tags].sort(),
      collection: i.collectionName,
      createdAt: i.createdAt,
      processed: i.processedAt !== null,
      notes: i.notes,
      highlights: highlights.map((h) => ({ text: h.text, note: h.note, prefix: h.prefix, suffix: h.suffix, startOffset: h.startOffset, endOffset: h.endOffset })),
      content: content.status === 200 ? await content.text() : null,
    };
  }
  return out;
}

describe("round trip", () => {
  for (const [format, importFormat, account] of [
    ["json", "trove_json", accounts[0]!],
    ["markdown_zip", "trove_markdown_zip", accounts[1]!],
  ] as const) {
    test(`${format}: exported, imported into another account, equal field by field`, async () => {
      const { bytes } = await exportFile(trove, { format });
      const res = await trove.api("/api/imports", { method: "POST", body: bytes, headers: { "content-type": "application/octet-stream" }, key: account.apiKey });
      expect(res.status).toBe(200);
      const job = await waitForJob(trove, "imports", (await res.json()).import.id, account.apiKey);
      expect(job).toMatchObject({ status: "completed", format: importFormat, created: 4, failed: 0, alreadyPresent: 0 });
      // Content came with the file: nothing was fetched.
      expect(job.fetch).toEqual({ pending: 0, fetched: 0, failed: 0 });
      expect(await library(account.apiKey)).toEqual(await library(aliceKey));
    });
  }
});
