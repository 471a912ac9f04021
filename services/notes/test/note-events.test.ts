// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS JetStream), driven over HTTP.
// Every note revision is recorded once in the event log (notes.event.<type>), in the write's own transaction, and
// handed to consumers of the log; a refused write records nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { noteEventsFilter, type NoteEventMessage } from "@trove/contracts";
import { eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function ok(path: string, method: string, json?: unknown, t: TestTrove = trove) {
  const res = await t.api(path, { method, json });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A consumer of the note events in the log under a name of its own; `seen` by event id. */
async function watch(t: TestTrove = trove) {
  const seen = new Map<string, NoteEventMessage & { position: number }>();
  const sub = await t.runtime.events.consume({ name: `note-watch-${crypto.randomUUID().slice(0, 8)}`, filter: noteEventsFilter }, async (events) => {
    for (const e of events) seen.set(e.id, e.data as unknown as NoteEventMessage & { position: number });
  });
  return { seen, stop: () => sub.stop() };
}

/** The log's rows about a note. */
async function logged(noteId: string, t: TestTrove = trove) {
  const { rows } = await sql<{ id: string; stream: string; subject: string; account_id: string; data: NoteEventMessage }>`
    select id, stream, subject, account_id, data from eventlog.events where key = ${noteId} and stream = 'notes' order by seq`.execute(t.db);
  return rows;
}

test("every revision is in the log once and handed over with its type, revision, operation and position", async () => {
  const w = await watch();
  try {
    const id = (await ok("/api/notes", "POST", { title: "Announced", bodyMarkdown: "a" })).note.id;
    await ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "b" });
    await ok(`/api/notes/${id}`, "PATCH", { expectedRevision: 2, kind: "log" });
    await ok(`/api/notes/${id}/archive`, "POST", { expectedRevision: 3 });
    await ok(`/api/notes/${id}/restore`, "POST", { expectedRevision: 4 });
    await ok(`/api/notes/${id}/revisions/1/restore`, "POST", { expectedRevision: 5 });
    // A replayed write is no new revision and no new event.
    await ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "c", clientRequestId: "once" });
    await ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "c", clientRequestId: "once" });
    // Parallel appends: one event each.
    await Promise.all(Array.from({ length: 10 }, (_, i) => ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: `p${i}` })));

    // Committed with its revision: the log holds each revision's event once, right after the answers.
    const rows = await logged(id);
    expect(rows.map((r) => r.data.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    for (const r of rows) {
      expect(r).toMatchObject({ stream: "notes", subject: `notes.event.${r.data.type}`, account_id: r.data.accountId });
      expect(r.data.id).toBe(r.id);
    }

    const mine = () => [...w.seen.values()].filter((e) => e.noteId === id);
    await eventually(() => mine().length >= 17);
    const events = mine().sort((a, b) => a.revision - b.revision);
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    expect(events.slice(0, 7).map((e) => [e.type, e.operation])).toEqual([
      ["note.created", "create"],
      ["note.updated", "append"],
      ["note.updated", "metadata"],
      ["note.archived", "archive"],
      ["note.restored", "restore"],
      ["note.updated", "revision_restore"],
      ["note.updated", "append"],
    ]);
    for (const e of events) expect(e).toMatchObject({ accountId: expect.any(String), noteId: id, changedAt: expect.any(Number), position: expect.any(Number) });
    expect(new Set(events.map((e) => e.position)).size).toBe(17);
  } finally {
    await w.stop();
  }
});

test("a refused write records nothing", async () => {
  const w = await watch();
  try {
    const id = (await ok("/api/notes", "POST", { title: "Guarded" })).note.id;
    const stale = await trove.api(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 7, kind: "x" } });
    expect(stale.status).toBe(409);
    // A later write's event arrives; none came for the refused one in between.
    await ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "later" });
    await eventually(() => [...w.seen.values()].some((e) => e.noteId === id && e.revision === 2));
    expect([...w.seen.values()].filter((e) => e.noteId === id).map((e) => e.revision).sort()).toEqual([1, 2]);
    expect((await logged(id)).map((r) => r.data.revision).sort()).toEqual([1, 2]);
  } finally {
    await w.stop();
  }
});

describe("an installation upgraded from the notes' own outbox", () => {
  test("events the outbox still held move into the log and reach the consumers; the outbox is gone", async () => {
    const t = await startTrove({ TROVE_RATE_LIMIT: "1000000" }, { persistent: true });
    try {
      const searchIds = async (q: string) => ((await ok(`/api/notes/search?q=${q}`, "GET", undefined, t)).results as { id: string }[]).map((r) => r.id);
      // Another note keeps the index from being empty, so no start rebuilds it from the notes.
      const other = (await ok("/api/notes", "POST", { title: "Kestrel hovering", bodyMarkdown: "Over the verge." }, t)).note.id;
      const id = (await ok("/api/notes", "POST", { title: "Heron migration", bodyMarkdown: "Grey herons at dusk." }, t)).note.id;
      await eventually(async () => (await searchIds("heron")).includes(id) && (await searchIds("kestrel")).includes(other));
      const accountId = (await logged(id, t))[0]!.account_id;

      // As the notes service left it before the upgrade, stopped: an event of the note still in its outbox (never
      // published, so the index never had what it announces), the move not made yet. (The note's earlier events
      // stay in the log, consumed: the log's positions only grow, as they do on a real installation.)
      await t.restart({ without: ["notes"] });
      const waiting = crypto.randomUUID();
      await sql`delete from notes.search_docs where id = ${id}`.execute(t.db);
      await sql`create table notes.note_events (id text primary key, account_id text not null, note_id text not null, type text not null,
                revision int4 not null, operation text not null, changed_at int8 not null)`.execute(t.db);
      await sql`insert into notes.note_events values (${waiting}, ${accountId}, ${id}, 'note.created', 1, 'create', ${Date.now()})`.execute(t.db);
      await sql`delete from notes.kysely_migration where name = '2026-12-04T1100-note-events-adoption'`.execute(t.db);

      await t.restart();
      const moved = (await logged(id, t)).find((r) => r.id === waiting);
      expect(moved).toMatchObject({
        id: waiting,
        stream: "notes",
        subject: "notes.event.note.created",
        account_id: accountId,
        data: { id: waiting, accountId, type: "note.created", noteId: id, revision: 1, operation: "create", changedAt: expect.any(Number) },
      });
      expect((await sql<{ t: string | null }>`select to_regclass('notes.note_events')::text as t`.execute(t.db)).rows[0]!.t).toBeNull();
      await eventually(async () => (await searchIds("heron")).includes(id), 30_000);
    } finally {
      await t.stop();
    }
  }, 120_000);
});
