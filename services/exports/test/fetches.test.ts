// The politeness rule of the background fetch, on the real database: one fetch in flight per host, the next one
// to that host only `gap` after the last finished, other hosts meanwhile; a fetch whose runner vanished is taken
// again once its lease ran out. No replica runs jobs here (TROVE_JOB_WORKERS=0), so only this test claims.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, type TestTrove } from "@trove/testing";
import { FetchesRepository } from "../fetches.repository.ts";

let trove: TestTrove;
let repo: FetchesRepository;
beforeAll(async () => {
  trove = await startTrove({ TROVE_JOB_WORKERS: "0" });
  repo = new FetchesRepository(trove.db);
  await trove.db
    .insertInto("exports.jobs")
    .values({ id: "job-1", account_id: "acc", kind: "import", status: "completed", format: "netscape_html", params: "{}", caller: '{"accountId":"acc"}', created_at: 1 })
    .execute();
  const fetches = [
    ["a.test", "i1"],
    ["a.test", "i2"],
    ["b.test", "i3"],
  ];
  await trove.db.insertInto("exports.fetches").values(fetches.map(([host, item]) => ({ job_id: "job-1", item_id: item, host, state: "pending" }))).execute();
  await trove.db.insertInto("exports.fetch_hosts").values([{ host: "a.test", next_at: 0 }, { host: "b.test", next_at: 0 }]).execute();
});
afterAll(() => trove.stop());

describe("background fetch politeness", () => {
  test("one fetch per host at a time, `gap` apart; other hosts go on; a vanished runner's fetch is retried", async () => {
    const t0 = 1_000_000;
    const first = await repo.claim(t0, 60_000);
    const second = await repo.claim(t0, 60_000);
    expect(new Set([first?.host, second?.host])).toEqual(new Set(["a.test", "b.test"]));
    // Both hosts are busy: nothing more now, however many fetches wait.
    expect(await repo.claim(t0 + 1, 60_000)).toBeUndefined();
    const onA = first!.host === "a.test" ? first! : second!;
    await repo.finish(onA, true, null, t0 + 100, 2_000);
    // a.test is free only `gap` after its fetch finished.
    expect(await repo.claim(t0 + 1_000, 60_000)).toBeUndefined();
    expect(await repo.nextDue()).toBe(t0 + 2_100);
    const next = await repo.claim(t0 + 2_100, 60_000);
    expect(next).toMatchObject({ host: "a.test", jobId: "job-1" });
    expect(next!.itemId).not.toBe(onA.itemId);
    // The b.test runner vanished: its fetch is taken again once the lease ran out, not before.
    expect(await repo.claim(t0 + 59_999, 60_000)).toBeUndefined();
    const retried = await repo.claim(t0 + 60_001, 60_000);
    expect(retried).toMatchObject({ host: "b.test", itemId: "i3" });
  });
});
