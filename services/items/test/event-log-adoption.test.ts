// Real: every service in-process (PGlite in the data directory + the in-process bus, or PostgreSQL + NATS),
// restarted on the same data. An installation upgraded from the release whose items kept their own event outbox
// (items.item_events, and items.tag_deletions for deleted tags): its database is put back to what that release
// left (those tables, the event log not made yet), and the Trove started on it moves them into the event log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { persistent: true });
});
afterAll(() => trove.stop());

const html = "<article><h1>Post</h1><p>Some words worth keeping for later reading.</p></article>";
const ok = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
const save = async (n: number) => (await ok("/api/ingest", { method: "POST", json: { url: `https://upgrade.example.test/${n}`, html } })).id as string;
/** Every event after `cursor` (from the start without one), in pages of `limit`. */
const walk = async (cursor?: string, limit = 1000) => {
  const events: { id: string; type: string; itemId: string }[] = [];
  for (;;) {
    const body = await ok(`/api/items/changes?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) })}`);
    events.push(...body.events);
    cursor = body.nextCursor as string;
    if (!body.hasMore) return { events, cursor };
  }
};

/**
 * The database as the previous release left it: the item events in items.item_events (ids, positions and
 * publication marks as they were), one more the relay had not numbered yet (a commit just before the stop), a
 * deleted tag's announcement not yet published, and no event log.
 */
async function backToTheOutbox(db: Kysely<any>, pending: { accountId: string; itemId: string; deletedSlug: string }): Promise<string> {
  await sql`create table items.item_events (
    seq bigserial primary key, id text not null unique, account_id text not null, type text not null, item_id text not null,
    changed_at int8 not null, before_scope jsonb, after_scope jsonb, payload jsonb not null, published_at int8, position int8 unique)`.execute(db);
  await sql`insert into items.item_events (id, account_id, type, item_id, changed_at, before_scope, after_scope, payload, published_at, position)
    select id, account_id, data->>'type', key, at, data->'beforeScope', data->'afterScope', data->'payload', published_at, position
      from eventlog.events where subject like 'items.event.%' order by seq`.execute(db);
  const unnumbered = crypto.randomUUID();
  const scope = JSON.stringify({ status: "stashed", tagSlugs: [], collectionIds: [] });
  await sql`insert into items.item_events (id, account_id, type, item_id, changed_at, before_scope, after_scope, payload)
    values (${unnumbered}, ${pending.accountId}, 'item.updated', ${pending.itemId}, ${Date.now()}, ${scope}::jsonb, ${scope}::jsonb,
            '{"changedFields":["timesAdded","lastSeenAt"]}'::jsonb)`.execute(db);
  await sql`create table items.tag_deletions (id text primary key, account_id text not null, slug text not null, deleted_at int8 not null)`.execute(db);
  await sql`insert into items.tag_deletions values (${crypto.randomUUID()}, ${pending.accountId}, ${pending.deletedSlug}, ${Date.now()})`.execute(db);
  await sql`delete from items.kysely_migration where name = '2026-12-04T1000-event-log-adoption'`.execute(db);
  await sql`drop schema eventlog cascade`.execute(db);
  return unnumbered;
}

describe("upgrading from the items' own event outbox", () => {
  test("a change-stream cursor given out before walks on after; a deletion announced before reaches notes", async () => {
    const first = await save(1);
    const second = await save(2);
    await ok(`/api/items/${first}`, { method: "POST", json: { tags: ["kept"] } });
    const note = (await ok("/api/notes", { method: "POST", json: { title: "Tagged before the upgrade", tags: ["retired", "kept"] } })).note.id as string;
    const before = await walk();
    expect(before.events.map((e) => e.type)).toEqual(["item.created", "item.created", "item.tagged"]);
    // A client read the first page (two events) and holds its cursor.
    const held = (await ok("/api/items/changes?limit=2")).nextCursor as string;
    const accountId = (await trove.db.selectFrom("gateway.accounts").select("id").where("email", "=", "alice@example.test").executeTakeFirstOrThrow()).id as string;

    const unnumbered = await backToTheOutbox(trove.db, { accountId, itemId: second, deletedSlug: "retired" });
    await trove.restart();

    // The held cursor goes on with the third event, then the one committed unnumbered; nothing twice, nothing lost.
    const after = await walk(held);
    expect(after.events.map((e) => e.id)).toEqual([before.events[2]!.id, unnumbered]);
    expect(after.events[1]).toMatchObject({ type: "item.updated", itemId: second });
    // The cursor of the whole walk before the upgrade sees only what came after it.
    expect((await walk(before.cursor)).events.map((e) => e.id)).toEqual([unnumbered]);
    const third = await save(3);
    expect((await walk(after.cursor)).events.map((e) => [e.type, e.itemId])).toEqual([["item.created", third]]);
    expect((await walk()).events.map((e) => e.id)).toEqual([...before.events.map((e) => e.id), unnumbered, expect.any(String)]);

    // The deletion announced before the upgrade is published from the log, and notes applies it.
    await eventually(async () => !(await ok(`/api/notes/${note}`)).note.tags.includes("retired"), 15_000);
    expect((await ok(`/api/notes/${note}`)).note.tags).toEqual(["kept"]);
    const { rows } = await sql<{ left: string | null }>`select coalesce(to_regclass('items.item_events')::text, to_regclass('items.tag_deletions')::text) as left`.execute(trove.db);
    expect(rows[0]!.left).toBeNull();
  }, 120_000);
});
