// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS JetStream), driven over HTTP.
// Every note revision is announced once on the bus (notes.event.<type>) after its write commits, from the outbox.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { noteEventsFilter, type NoteEventMessage } from "@trove/contracts";
import { eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function ok(path: string, method: string, json?: unknown) {
  const res = await trove.api(path, { method, json });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

test("every revision is published once, with its type, revision and operation; the outbox empties", async () => {
  const seen = new Map<string, NoteEventMessage>();
  const sub = await trove.bus.consume({ durable: `note-watch-${crypto.randomUUID().slice(0, 8)}`, filter: noteEventsFilter }, async (ev) => {
    seen.set(ev.id, ev.data as NoteEventMessage);
  });
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
    const mine = () => [...seen.values()].filter((e) => e.noteId === id);
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
    for (const e of events) expect(e).toMatchObject({ accountId: expect.any(String), noteId: id, changedAt: expect.any(Number) });
    await eventually(async () => Number((await sql<{ n: string }>`select count(*)::text as n from notes.note_events`.execute(trove.db)).rows[0]!.n) === 0);
  } finally {
    await sub.stop();
  }
});

test("a refused write announces nothing", async () => {
  const seen: NoteEventMessage[] = [];
  const sub = await trove.bus.consume({ durable: `note-refused-${crypto.randomUUID().slice(0, 8)}`, filter: noteEventsFilter }, async (ev) => {
    seen.push(ev.data as NoteEventMessage);
  });
  try {
    const id = (await ok("/api/notes", "POST", { title: "Guarded" })).note.id;
    const stale = await trove.api(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 7, kind: "x" } });
    expect(stale.status).toBe(409);
    // A later write's event arrives; none came for the refused one in between.
    await ok(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "later" });
    await eventually(() => seen.some((e) => e.noteId === id && e.revision === 2));
    expect(seen.filter((e) => e.noteId === id).map((e) => e.revision).sort()).toEqual([1, 2]);
  } finally {
    await sub.stop();
  }
});
