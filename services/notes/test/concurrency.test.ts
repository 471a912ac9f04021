// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP with
// requests in flight at once. Concurrent writers never lose an update and never share a revision number; a
// clientRequestId sent many times at once is one write; a long history stays linear in storage and rebuilds
// every revision exactly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function call(path: string, method = "GET", json?: unknown) {
  const res = await trove.api(path, { method, json });
  return { status: res.status, body: (await res.json()) as any };
}

async function newNote(body = "start"): Promise<string> {
  const r = await call("/api/notes", "POST", { title: "Concurrent", bodyMarkdown: body });
  expect(r.status).toBe(200);
  return r.body.note.id;
}

async function revisions(id: string): Promise<number[]> {
  const all: number[] = [];
  for (let offset = 0; ; ) {
    const page = (await call(`/api/notes/${id}/history?limit=200&offset=${offset}`)).body;
    all.push(...page.revisions.map((r: any) => r.revisionNumber));
    if (page.nextOffset === null) return all;
    offset = page.nextOffset;
  }
}

describe("parallel writers", () => {
  test("40 parallel appends: all acknowledged, every one in the body, revision numbers dense and unique", async () => {
    const id = await newNote();
    const n = 40;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: `append-${i}-marker` })));
    expect(results.map((r) => r.status)).toEqual(Array(n).fill(200));
    const numbers = results.map((r) => r.body.revision.revisionNumber).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: n }, (_, i) => i + 2));
    const note = (await call(`/api/notes/${id}`)).body.note;
    expect(note.currentRevision).toBe(n + 1);
    for (let i = 0; i < n; i++) expect(note.bodyMarkdown).toContain(`append-${i}-marker`);
    expect(note.bodyMarkdown.split("\n")).toHaveLength(n + 1);
    expect(await revisions(id)).toEqual(Array.from({ length: n + 1 }, (_, i) => n + 1 - i));
  });

  test("20 conflicting replaces with the same expectedRevision: exactly one wins, the rest answer 409", async () => {
    const id = await newNote();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`/api/notes/${id}`, "PATCH", { expectedRevision: 1, bodyMarkdown: `winner ${i}` })));
    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status === 409);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) expect(r.body).toMatchObject({ error: "revision_conflict", currentRevision: 2 });
    const note = (await call(`/api/notes/${id}`)).body.note;
    expect(note.currentRevision).toBe(2);
    expect(note.bodyMarkdown).toBe(`winner ${results.indexOf(won[0]!)}`);
  });

  test("appends, pinned appends and replaces racing together: numbers dense, every acknowledged append present", async () => {
    const id = await newNote("");
    const jobs = Array.from({ length: 30 }, (_, i) => {
      if (i % 3 === 0) return call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: `free-${i}` }).then((r) => ({ kind: "free", i, r }));
      if (i % 3 === 1) return call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: `pinned-${i}`, expectedRevision: 1 }).then((r) => ({ kind: "pinned", i, r }));
      return call(`/api/notes/${id}`, "PATCH", { expectedRevision: 1, title: `replace-${i}` }).then((r) => ({ kind: "replace", i, r }));
    });
    const done = await Promise.all(jobs);
    for (const d of done) expect([200, 409]).toContain(d.r.status);
    // Free appends never conflict.
    expect(done.filter((d) => d.kind === "free").every((d) => d.r.status === 200)).toBe(true);
    const acknowledged = done.filter((d) => d.r.status === 200);
    const numbers = acknowledged.map((d) => d.r.body.revision.revisionNumber).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: acknowledged.length }, (_, i) => i + 2));
    const note = (await call(`/api/notes/${id}`)).body.note;
    expect(note.currentRevision).toBe(acknowledged.length + 1);
    for (const d of acknowledged) if (d.kind !== "replace") expect(note.bodyMarkdown).toContain(`${d.kind}-${d.i}`);
    expect(await revisions(id)).toEqual(Array.from({ length: note.currentRevision }, (_, i) => note.currentRevision - i));
  });

  test("one clientRequestId sent 20 times at once is one write with one receipt", async () => {
    const id = await newNote();
    const results = await Promise.all(Array.from({ length: 20 }, () => call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: "exactly-once", clientRequestId: "same-request" })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of results) expect(r.body).toEqual(results[0]!.body);
    const note = (await call(`/api/notes/${id}`)).body.note;
    expect(note.currentRevision).toBe(2);
    expect(note.bodyMarkdown.match(/exactly-once/g)).toHaveLength(1);
  });

  test("a create with one clientRequestId sent 20 times at once makes one note", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call("/api/notes", "POST", { title: "Created once", kind: "once-parallel", clientRequestId: "parallel-create" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of results) expect(r.body).toEqual(results[0]!.body);
    expect((await call("/api/notes?kind=once-parallel")).body.count).toBe(1);
  });

  test("writes to many notes in parallel each land on their own note", async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => newNote("")));
    await Promise.all(ids.flatMap((id) => Array.from({ length: 5 }, (_, j) => call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: `${id}:${j}` }))));
    for (const id of ids) {
      const note = (await call(`/api/notes/${id}`)).body.note;
      expect(note.currentRevision).toBe(6);
      expect(note.bodyMarkdown.split("\n").sort()).toEqual(Array.from({ length: 5 }, (_, j) => `${id}:${j}`).sort());
    }
  });
});

describe("long histories", () => {
  test("600 appends: every revision rebuilds exactly, and stored history stays linear in what was written", async () => {
    const id = await newNote("");
    const lines: string[] = [];
    for (let i = 0; i < 600; i++) {
      const line = `line ${i} ${"x".repeat(90)}`;
      lines.push(line);
      const r = await call(`/api/notes/${id}/append`, "POST", { bodyMarkdown: line });
      expect(r.status).toBe(200);
    }
    const final = lines.join("\n");
    expect((await call(`/api/notes/${id}`)).body.note.bodyMarkdown).toBe(final);
    // Pinned reads across the snapshot boundaries.
    for (const rev of [2, 256, 257, 258, 400, 513, 601]) {
      const r = await call(`/api/notes/${id}/read?view=lines&lines=${rev - 1}:${rev - 1}&revision=${rev}`);
      expect({ rev, status: r.status, text: r.body.text, lineCount: r.body.lineCount }).toEqual({ rev, status: 200, text: lines[rev - 2], lineCount: rev - 1 });
    }
    // A history page with content rebuilds each body.
    const page = (await call(`/api/notes/${id}/history?include=content&limit=5&offset=340`)).body;
    for (const r of page.revisions) expect(r.bodyMarkdown).toBe(lines.slice(0, r.revisionNumber - 1).join("\n"));
    // Stored bytes: a full copy per revision would be about 600 * 30 KB = 17 MB; linear storage is a few times the body.
    const stored = await sql<{ n: string }>`select sum(octet_length(body))::text as n from notes.revisions where note_id = ${id}`.execute(trove.db);
    expect(Number(stored.rows[0]!.n)).toBeLessThan(final.length * 6);
  }, 120_000);
});
