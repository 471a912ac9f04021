// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS/JetStream), driven over HTTP.
// Deleting a tag through the items API removes it from every note of the account with a metadata revision before
// the DELETE answers (items asks notes), and records tag.deleted in the event log, which the notes service consumes
// durably from its position in the log for whatever the request missed (either path may do a note's work; the other
// then finds it done). The last tests run a Trove whose notes service is stopped while the tag is deleted, and
// started again on the same bus and database, and an announcement a crash left committed but not yet numbered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tagDeletedSubject } from "@trove/contracts";
import { migrateModules, type RunningService } from "@trove/host";
import { notesService } from "@trove/notes";
import { bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

type Init = Parameters<TestTrove["api"]>[1];
const ok = async (path: string, init?: Init, t = trove) => {
  const res = await t.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
const newNote = async (title: string, tags: string[], key?: string, t = trove) => (await ok("/api/notes", { method: "POST", key, json: { title, tags } }, t)).note.id as string;
const tagsOf = async (id: string, key?: string, t = trove) => (await ok(`/api/notes/${id}`, { key }, t)).note.tags as string[];
/** The notes service's log lines for a deletion, by path: the items request before the answer, or the event. */
const handled = (t: TestTrove, slug: string, via?: "request" | "event") =>
  t.logs.filter((l) => l.msg === "tag.deleted handled" && l.slug === slug && (via === undefined || l.via === via));

describe("deleting a tag", () => {
  test("removes it from every note of the account, archived ones too, each with a metadata revision", async () => {
    await ok("/api/tags", { method: "POST", json: { name: "Field Work" } });
    const a = await newNote("A", ["field-work", "keep"]);
    const b = await newNote("B", ["Field Work"]);
    const archived = await newNote("C", ["keep", "field-work"]);
    await ok(`/api/notes/${archived}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    const untouched = await newNote("D", ["keep"]);
    const bobs = await newNote("Bob's", ["field-work"], bobKey);

    expect(await ok("/api/tags/field-work", { method: "DELETE" })).toMatchObject({ ok: true, slug: "field-work" });
    // Answered: the notes are already without it.
    expect(await tagsOf(a)).toEqual(["keep"]);
    expect(await tagsOf(b)).toEqual([]);
    expect(await tagsOf(archived)).toEqual(["keep"]);
    expect((await ok(`/api/notes/${archived}`)).note.archived).toBe(true);

    const [latest] = (await ok(`/api/notes/${a}/history`)).revisions;
    expect(latest).toMatchObject({ revisionNumber: 2, operation: "metadata", metadataDiff: { tagsAdded: [], tagsRemoved: ["field-work"] } });
    expect((await ok(`/api/notes/${archived}/history`)).revisions[0]).toMatchObject({ revisionNumber: 3, operation: "metadata" });
    // Other notes and other accounts are left alone.
    expect((await ok(`/api/notes/${untouched}`)).note).toMatchObject({ tags: ["keep"], currentRevision: 1 });
    expect((await ok(`/api/notes/${bobs}`, { key: bobKey })).note).toMatchObject({ tags: ["field-work"], currentRevision: 1 });
    expect(handled(trove, "field-work", "request")).toHaveLength(1);
    // The event reaches notes too: whichever path came second wrote nothing new (one revision per note).
    await eventually(() => handled(trove, "field-work", "event").length > 0);
    expect((await ok(`/api/notes/${a}/history`)).revisions).toHaveLength(2);
    expect((await ok(`/api/notes/${archived}/history`)).revisions).toHaveLength(3);
  });

  test("an event delivered again writes nothing new, even on a note that got the tag back meanwhile", async () => {
    await ok("/api/tags", { method: "POST", json: { name: "twice" } });
    const id = await newNote("Twice", ["twice", "other"]);
    await ok("/api/tags/twice", { method: "DELETE" });
    expect(await tagsOf(id)).toEqual(["other"]);
    await eventually(() => handled(trove, "twice", "event").length === 1);
    // The user puts the tag back on the note.
    await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 2, tags: ["other", "twice"] } });

    // At least once: the same deletion again (a replay; a new row of the log, so nothing takes it for a duplicate).
    const original = handled(trove, "twice", "request")[0]!;
    await logDeletion(trove, { id: String(original.eventId), accountId: String(original.account), slug: "twice", deletedAt: Date.now() }, crypto.randomUUID());
    await eventually(() => handled(trove, "twice", "event").length === 2);
    expect(handled(trove, "twice", "event")[1]).toMatchObject({ eventId: original.eventId, notesChanged: 0 });
    expect((await ok(`/api/notes/${id}`)).note).toMatchObject({ tags: ["other", "twice"], currentRevision: 3 });
  });

  test("a late event leaves the tag on a note that was given it after the deletion", async () => {
    const id = await newNote("Tagged later", ["later"]);
    const account = (await trove.db.selectFrom("notes.notes").select("account_id").where("id", "=", id).executeTakeFirstOrThrow()).account_id;
    // An event for a deletion a minute ago, delivered only now (a consumer that was behind).
    const eventId = crypto.randomUUID();
    await logDeletion(trove, { id: eventId, accountId: account, slug: "later", deletedAt: Date.now() - 60_000 });
    await eventually(() => handled(trove, "later").length === 1);
    expect(handled(trove, "later")[0]).toMatchObject({ eventId, notesChanged: 0 });
    expect((await ok(`/api/notes/${id}`)).note).toMatchObject({ tags: ["later"], currentRevision: 1 });
  });

  test("many notes carrying the tag are all changed (walked in pages) before the delete answers", async () => {
    await ok("/api/tags", { method: "POST", json: { name: "bulk" } });
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) ids.push(await newNote(`Bulk ${i}`, ["bulk"]));
    await ok("/api/tags/bulk", { method: "DELETE" });
    // Read your own write: the note walked last and the tag's list, read right after the answer.
    const last = [...ids].sort().at(-1)!;
    expect((await ok(`/api/notes/${last}`)).note).toMatchObject({ tags: [], currentRevision: 2 });
    expect((await ok("/api/notes?tags=bulk&archived=any")).count).toBe(0);
    expect(handled(trove, "bulk", "request")).toHaveLength(1);
    await eventually(() => handled(trove, "bulk", "event").length > 0);
    for (const id of [ids[0]!, last]) expect((await ok(`/api/notes/${id}`)).note.currentRevision).toBe(2);
  }, 120_000);
});

describe("a notes service that was down", () => {
  test("catches up on the tags deleted meanwhile", async () => {
    const t = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { without: ["notes"] });
    let notes: RunningService | undefined;
    try {
      await migrateModules([notesService], t.runtime.database);
      notes = await notesService.start(t.runtime);
      await ok("/api/tags", { method: "POST", json: { name: "offline" } }, t);
      const id = await newNote("Written before the outage", ["offline", "stays"], undefined, t);
      await notes.stop();
      notes = undefined;

      // The notes service is down: the tag is still deleted (no notes service answers, so none is waited for).
      expect((await t.api(`/api/notes/${id}`)).status).toBe(503);
      expect(await ok("/api/tags/offline", { method: "DELETE" }, t)).toMatchObject({ ok: true, slug: "offline" });
      expect(t.logs.filter((l) => String(l.msg).startsWith("notes service did not answer: the deleted tag") && l.slug === "offline")).toHaveLength(1);
      // Recorded while notes is down (on NATS the relay has sent it on too), and nobody has consumed it yet.
      expect(await deletionsInLog(t, "offline")).toBe(1);
      if (t.runtime.bus.kind === "nats") await eventually(async () => (await deletionsInLog(t, "offline", { unpublished: true })) === 0);
      expect(handled(t, "offline")).toEqual([]);

      notes = await notesService.start(t.runtime);
      await eventually(async () => (await tagsOf(id, undefined, t)).length === 1, 15_000);
      expect(await tagsOf(id, undefined, t)).toEqual(["stays"]);
      expect((await ok(`/api/notes/${id}/history`, undefined, t)).revisions[0]).toMatchObject({
        operation: "metadata",
        metadataDiff: { tagsRemoved: ["offline"] },
      });
    } finally {
      await notes?.stop();
      await t.stop();
    }
  }, 60_000);
});

describe("the event log", () => {
  test("an announcement a crash left committed but not yet numbered reaches the notes", async () => {
    const id = await newNote("Tagged", ["crashed", "stays"]);
    const account = (await trove.db.selectFrom("notes.notes").select("account_id").where("id", "=", id).executeTakeFirstOrThrow()).account_id;
    // What a DELETE /api/tags/crashed committed just before its process died: the event, neither positioned nor published.
    const eventId = crypto.randomUUID();
    const deletedAt = Date.now();
    await logDeletion(trove, { id: eventId, accountId: account, slug: "crashed", deletedAt });
    await eventually(async () => (await tagsOf(id)).length === 1, 15_000);
    expect(await tagsOf(id)).toEqual(["stays"]);
    // On NATS the relay publishes it too; in process nothing goes to the bus (consumers read the log).
    if (trove.runtime.bus.kind === "nats") await eventually(async () => (await deletionsInLog(trove, "crashed", { unpublished: true })) === 0);
    else expect(await deletionsInLog(trove, "crashed", { unpublished: true })).toBe(1);
  }, 60_000);
});

/** Writes a tag.deleted event into the log as a DELETE's unit of work would (without the poke after its commit). */
async function logDeletion(t: TestTrove, e: { id: string; accountId: string; slug: string; deletedAt: number }, rowId = e.id): Promise<void> {
  await t.db
    .insertInto("eventlog.events")
    .values({ id: rowId, stream: "items", subject: tagDeletedSubject, account_id: e.accountId, key: e.slug, at: e.deletedAt, data: JSON.stringify(e) })
    .execute();
}

/** tag.deleted events of a slug in the log; with `unpublished`, those the relay has not published. */
async function deletionsInLog(t: TestTrove, slug: string, o: { unpublished?: boolean } = {}): Promise<number> {
  let q = t.db.selectFrom("eventlog.events").select("id").where("subject", "=", tagDeletedSubject).where("key", "=", slug);
  if (o.unpublished) q = q.where("published_at", "is", null);
  return (await q.execute()).length;
}
