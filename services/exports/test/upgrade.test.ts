// An installation upgraded with work open, as it was kept before the work queue (leases and attempts beside the job
// rows, a per-host table for the fetches): after the upgrade every open job runs on the queue, nothing is lost. The
// Trove starts first without the exports service, whose schema is then made as the release before left it; the
// restart upgrades it. PGlite in a data directory + the in-process bus, or PostgreSQL + NATS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { importEntriesSubject, type Caller, type ImportEntriesReply } from "@trove/contracts";
import { nowSeconds } from "@trove/db";
import { callerHeaders } from "@trove/host";
import { articleHtml, eventually, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";
import * as jobsBefore from "../migrations/2026-11-29T1200-jobs.ts";
import { waitForJob } from "./helpers.ts";

let trove: TestTrove;
let pages: PageServer;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_JOBS_TICK_MS: "100", TROVE_IMPORT_HOST_GAP_MS: "10" }, { persistent: true, without: ["exports"] });
  // The exports schema as the release before the work queue made it: its one migration then, recorded as the host
  // records it.
  await sql`create schema exports`.execute(trove.db);
  const made = await new Migrator({
    db: trove.db,
    provider: { getMigrations: async () => ({ "2026-11-29T1200-jobs": jobsBefore }) },
    migrationTableSchema: "exports",
  }).migrateToLatest();
  if (made.error) throw made.error;
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

/** Alice's personal key as a caller, as a job row keeps it. */
async function aliceCaller(): Promise<Caller> {
  const { rows } = await sql<{ id: string; key_id: string; plan: string; link_limit: number; limit_scope: "lifetime" | "billing_cycle" }>`
    select a.id, k.id as key_id, a.plan, a.link_limit, a.limit_scope from gateway.accounts a join gateway.api_keys k on k.account_id = a.id
     where a.email = 'alice@example.test' limit 1`.execute(trove.db);
  const a = rows[0]!;
  return { accountId: a.id, keyId: a.key_id, keyKind: "personal", access: "read_write", scope: null, plan: { name: a.plan, linkLimit: Number(a.link_limit), limitScope: a.limit_scope } };
}

describe("upgrade", () => {
  test("an export a stopped replica held, a page left to fetch and an expired file are all seen to after the upgrade", async () => {
    const caller = await aliceCaller();
    const saved = await trove.api("/api/ingest", { method: "POST", json: { url: "https://upgrade.example.test/saved", html: articleHtml } });
    expect(saved.status).toBe(200);
    // An imported entry saved without content, its page still to fetch.
    const imported = (await trove.bus.request(importEntriesSubject, { entries: [{ url: `${pages.url}/article`, title: "Imported" }] }, { timeoutMs: 30_000, headers: callerHeaders(caller) })) as ImportEntriesReply;
    const entry = imported.results[0]!;
    expect(entry).toMatchObject({ outcome: "created", needsFetch: true });
    const itemId = (entry as { id: string }).id;

    const now = nowSeconds();
    const job = (id: string, kind: string, status: string, extra: Record<string, unknown> = {}) => ({
      id,
      account_id: caller.accountId,
      kind,
      status,
      format: kind === "export" ? "json" : "netscape_html",
      params: JSON.stringify({ tags: [], collection: null, status: null, includeContent: true, includeNotes: true }),
      caller: JSON.stringify(caller),
      created_at: now,
      ...extra,
    });
    // Running on a replica stopped for the upgrade, its lease not yet run out.
    await trove.db.insertInto("exports.jobs").values(job("old-running", "export", "running", { attempts: 1, lease_owner: "old", lease_until: Date.now() + 3_600_000 })).execute();
    await trove.db.insertInto("exports.jobs").values(job("old-queued", "export", "queued")).execute();
    await trove.db.insertInto("exports.jobs").values(job("old-import", "import", "completed", { entries: 1, processed: 1, created: 1, completed_at: now })).execute();
    await trove.db.insertInto("exports.fetches").values({ job_id: "old-import", item_id: itemId, host: "127.0.0.1", state: "pending" }).execute();
    await trove.db.insertInto("exports.fetch_hosts").values({ host: "127.0.0.1", next_at: 0 }).execute();
    // A completed export whose file expired while the service was down.
    await trove.blobs.put("export-old-expired", new TextEncoder().encode("{}"));
    await trove.db
      .insertInto("exports.jobs")
      .values(job("old-expired", "export", "completed", { blob: "export-old-expired", completed_at: now - 7200, expires_at: now - 3600 }))
      .execute();

    await trove.restart();

    for (const id of ["old-running", "old-queued"]) {
      const done = await waitForJob(trove, "exports", id);
      expect(done).toMatchObject({ status: "completed", itemCount: 2 });
      const file = await trove.api(`/api/exports/${id}/download`);
      expect(file.status).toBe(200);
      expect(JSON.parse(await file.text()).items.map((i: any) => i.url).sort()).toEqual([`${pages.url}/article`, "https://upgrade.example.test/saved"]);
    }
    let fetch: any;
    await eventually(async () => {
      fetch = (await (await trove.api("/api/imports/old-import")).json()).import.fetch;
      return fetch.pending === 0;
    }, 30_000);
    expect(fetch).toEqual({ pending: 0, fetched: 1, failed: 0 });
    const item = await (await trove.api(`/api/items/${itemId}`)).json();
    expect((item.item ?? item).contentAvailable).toBe(true);
    await eventually(async () => !(await trove.blobs.list()).includes("export-old-expired"), 30_000);
    expect((await trove.api("/api/exports/old-expired/download")).status).toBe(410);
  });
});
