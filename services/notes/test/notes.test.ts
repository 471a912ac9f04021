// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// Notes: receipts, revisions and their history, expectedRevision, clientRequestId replay, PATCH semantics and
// metadataDiff, the read views, lists and filters, the Markdown form, and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function call(path: string, opts: { method?: string; json?: unknown; key?: string; headers?: Record<string, string> } = {}) {
  const res = await trove.api(path, opts);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the Markdown form.
  }
  return { status: res.status, body, text, headers: res.headers };
}

async function ok(path: string, opts: Parameters<typeof call>[1] = {}) {
  const r = await call(path, opts);
  if (r.status !== 200) throw new Error(`${opts.method ?? "GET"} ${path} answered ${r.status}: ${r.text}`);
  return r.body;
}

const create = (json: Record<string, unknown>) => ok("/api/notes", { method: "POST", json });
const note = async (id: string) => (await ok(`/api/notes/${id}`)).note;

describe("writes and receipts", () => {
  test("create answers a receipt without Markdown; the note reads back with every field", async () => {
    const r = await call("/api/notes", {
      method: "POST",
      json: { title: "Plan", bodyMarkdown: "# Plan\n\nsecret-body-marker", kind: "plan", state: "draft", tags: ["Deep Work", "deep-work", "ideas"], repository: "https://github.com/acme/app.git", paths: ["./src/api/", "/docs"], properties: { description: "the plan", n: 1 } },
    });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("secret-body-marker");
    expect(r.body.note.currentRevision).toBe(1);
    expect(r.body.revision).toEqual({ revisionNumber: 1, operation: "create" });
    expect(r.body.metadataDiff).toEqual({ tagsAdded: ["deep-work", "ideas"], tagsRemoved: [], kind: { before: null, after: "plan" }, state: { before: null, after: "draft" } });
    const n = await note(r.body.note.id);
    expect(n).toMatchObject({
      title: "Plan",
      bodyMarkdown: "# Plan\n\nsecret-body-marker",
      kind: "plan",
      state: "draft",
      tags: ["deep-work", "ideas"],
      repository: "https://github.com/acme/app.git",
      paths: ["src/api/", "docs"],
      properties: { description: "the plan", n: 1 },
      currentRevision: 1,
      archived: false,
      archivedAt: null,
      itemLinks: [],
      lineCount: 3,
    });
  });

  test("every write is a new numbered revision; history lists them newest first and is never rewritten", async () => {
    const id = (await create({ title: "Log", bodyMarkdown: "one" })).note.id;
    const append = await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "two" } });
    expect(append.revision).toEqual({ revisionNumber: 2, operation: "append" });
    await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 2, bodyMarkdown: "replaced" } });
    await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 3, state: "done" } });
    await ok(`/api/notes/${id}/archive`, { method: "POST", json: { expectedRevision: 4 } });
    await ok(`/api/notes/${id}/restore`, { method: "POST", json: { expectedRevision: 5 } });
    const restored = await ok(`/api/notes/${id}/revisions/2/restore`, { method: "POST", json: { expectedRevision: 6 } });
    expect(restored.revision).toEqual({ revisionNumber: 7, operation: "revision_restore" });
    const history = await ok(`/api/notes/${id}/history?include=content`);
    expect(history.count).toBe(7);
    expect(history.revisions.map((r: any) => [r.revisionNumber, r.operation, r.bodyMarkdown])).toEqual([
      [7, "revision_restore", "one\ntwo"],
      [6, "restore", "replaced"],
      [5, "archive", "replaced"],
      [4, "metadata", "replaced"],
      [3, "replace", "replaced"],
      [2, "append", "one\ntwo"],
      [1, "create", "one"],
    ]);
    expect(history.revisions[0].restoredFrom).toBe(2);
    expect((await note(id)).bodyMarkdown).toBe("one\ntwo");
    // Paged, without bodies unless asked.
    const page = await ok(`/api/notes/${id}/history?limit=2&offset=2`);
    expect(page.revisions.map((r: any) => r.revisionNumber)).toEqual([5, 4]);
    expect(page.revisions[0].bodyMarkdown).toBeUndefined();
    expect(page.nextOffset).toBe(4);
  });

  test("appends join on a new line, and after a trailing line break they start the empty last line", async () => {
    const id = (await create({ title: "Lines", bodyMarkdown: "" })).note.id;
    await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "a" } });
    await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "b\n" } });
    await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "c" } });
    const n = await note(id);
    expect(n.bodyMarkdown).toBe("a\nb\nc");
    expect(n.lineCount).toBe(3);
    const overview = await ok(`/api/notes/${id}/read`);
    expect(overview.lineCount).toBe(3);
  });

  test("expectedRevision: stale answers 409 with currentRevision, missing answers 400 where required", async () => {
    const id = (await create({ title: "Guarded", bodyMarkdown: "x" })).note.id;
    await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "y" } });
    for (const [path, method, json] of [
      [`/api/notes/${id}`, "PATCH", { expectedRevision: 1, bodyMarkdown: "z" }],
      [`/api/notes/${id}`, "PATCH", { expectedRevision: 1, kind: "log" }],
      [`/api/notes/${id}/archive`, "POST", { expectedRevision: 1 }],
      [`/api/notes/${id}/revisions/1/restore`, "POST", { expectedRevision: 1 }],
      [`/api/notes/${id}/append`, "POST", { expectedRevision: 1, bodyMarkdown: "pinned" }],
    ] as const) {
      const r = await call(path, { method, json });
      expect({ path, status: r.status, body: r.body }).toMatchObject({ status: 409, body: { error: "revision_conflict", currentRevision: 2 } });
    }
    for (const [path, method, json] of [
      [`/api/notes/${id}`, "PATCH", { bodyMarkdown: "z" }],
      [`/api/notes/${id}`, "PATCH", { tags: [] }],
      [`/api/notes/${id}/archive`, "POST", {}],
      [`/api/notes/${id}/restore`, "POST", {}],
      [`/api/notes/${id}/revisions/1/restore`, "POST", {}],
    ] as const) {
      const r = await call(path, { method, json });
      expect({ path, status: r.status, error: r.body.error, field: r.body.fields?.expectedRevision !== undefined }).toEqual({ path, status: 400, error: "validation_failed", field: true });
    }
    for (const bad of [-1, 0, 1.5, "2", 2 ** 40]) {
      const r = await call(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: bad, kind: "x" } });
      expect({ bad, status: r.status, error: r.body.error }).toEqual({ bad, status: 400, error: "validation_failed" });
    }
    // Nothing of the refused writes landed.
    expect((await note(id)).currentRevision).toBe(2);
    expect((await note(id)).bodyMarkdown).toBe("x\ny");
    // A pinned append with the current revision applies.
    const pinned = await ok(`/api/notes/${id}/append`, { method: "POST", json: { expectedRevision: 2, bodyMarkdown: "pinned" } });
    expect(pinned.note.currentRevision).toBe(3);
  });

  test("the same clientRequestId on the same note returns the first receipt and writes nothing", async () => {
    const first = await create({ title: "Once", bodyMarkdown: "x", clientRequestId: "create-1" });
    const again = await create({ title: "Twice?", bodyMarkdown: "y", clientRequestId: "create-1" });
    expect(again).toEqual(first);
    const id = first.note.id;
    const a1 = await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "appended", clientRequestId: "w-1" } });
    const a2 = await ok(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: "appended", clientRequestId: "w-1" } });
    expect(a2).toEqual(a1);
    // A later write reusing the id, even of another kind and with a stale revision, is the same write.
    const replay = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 1, title: "New", clientRequestId: "w-1" } });
    expect(replay).toEqual(a1);
    const n = await note(id);
    expect(n.currentRevision).toBe(2);
    expect(n.bodyMarkdown).toBe("x\nappended");
    expect(n.title).toBe("Once");
    // The same id on another note is another write.
    const other = (await create({ title: "Other", bodyMarkdown: "" })).note.id;
    const there = await ok(`/api/notes/${other}/append`, { method: "POST", json: { bodyMarkdown: "z", clientRequestId: "w-1" } });
    expect(there.note.id).toBe(other);
    expect(there.revision.revisionNumber).toBe(2);
  });

  test("archive and restore: archived notes leave the default list and come back; a second archive is 409 invalid_state", async () => {
    const id = (await create({ title: "Archivable", kind: "archive-test" })).note.id;
    await ok(`/api/notes/${id}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    const again = await call(`/api/notes/${id}/archive`, { method: "POST", json: { expectedRevision: 2 } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("invalid_state");
    expect((await ok("/api/notes?kind=archive-test")).notes).toEqual([]);
    const archived = (await ok("/api/notes?kind=archive-test&archived=true")).notes;
    expect(archived.map((n: any) => [n.id, n.archived])).toEqual([[id, true]]);
    expect(archived[0].archivedAt).toBeGreaterThan(0);
    await ok(`/api/notes/${id}/restore`, { method: "POST", json: { expectedRevision: 2 } });
    expect((await ok("/api/notes?kind=archive-test")).notes.map((n: any) => n.archivedAt)).toEqual([null]);
  });
});

describe("PATCH semantics", () => {
  test("only supplied fields change; null clears project, repository, kind and state; [] removes every tag; properties touch nothing else", async () => {
    const project: string = (await ok("/api/projects", { method: "POST", json: { name: "Patch semantics" } })).project.id;
    const id = (
      await create({
        title: "Meta",
        bodyMarkdown: "body",
        kind: "plan",
        state: "draft",
        tags: ["a", "b"],
        repository: "github.com/acme/patch",
        project,
        properties: { keep: 1 },
      })
    ).note.id;
    const props = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 1, properties: { other: true } } });
    expect(props.revision.operation).toBe("metadata");
    expect(props.metadataDiff).toEqual({ tagsAdded: [], tagsRemoved: [] });
    let n = await note(id);
    expect(n).toMatchObject({ title: "Meta", bodyMarkdown: "body", kind: "plan", state: "draft", tags: ["a", "b"], repository: "github.com/acme/patch", properties: { other: true } });

    const tags = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 2, tags: ["b", "C"] } });
    expect(tags.metadataDiff).toEqual({ tagsAdded: ["c"], tagsRemoved: ["a"] });

    const cleared = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 3, kind: null, state: null, repository: null, project: null, tags: [] } });
    expect(cleared.metadataDiff).toEqual({
      tagsAdded: [],
      tagsRemoved: ["b", "c"],
      kind: { before: "plan", after: null },
      state: { before: "draft", after: null },
      project: { before: project, after: null },
    });
    n = await note(id);
    expect(n).toMatchObject({ kind: null, state: null, repository: null, project: null, tags: [], bodyMarkdown: "body", title: "Meta", properties: { other: true } });
    // A value equal to the current one is no change in the diff.
    const same = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 4, kind: null } });
    expect(same.metadataDiff).toEqual({ tagsAdded: [], tagsRemoved: [] });
  });

  test("title or body in a PATCH is a replacement", async () => {
    const id = (await create({ title: "T", bodyMarkdown: "b", kind: "k" })).note.id;
    const r = await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 1, title: "T2" } });
    expect(r).toMatchObject({ note: { title: "T2", currentRevision: 2 }, revision: { operation: "replace" } });
    expect(await note(id)).toMatchObject({ title: "T2", bodyMarkdown: "b", kind: "k" });
  });
});

describe("reads", () => {
  const body = ["# Title", "", "intro line", "## Setup", "install the thing", "```", "# not a heading", "```", "## Usage", ...Array.from({ length: 300 }, (_, i) => `row ${i + 1} ${i % 50 === 0 ? "needle" : "hay"}`)].join("\n");
  let id = "";
  beforeAll(async () => {
    id = (await create({ title: "Long read", bodyMarkdown: body })).note.id;
    await ok(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 1, bodyMarkdown: "# Short\nnow" } });
  });

  test("overview: revision, counts and the heading outline; never the body", async () => {
    const r = await call(`/api/notes/${id}/read?view=overview&revision=1`);
    expect(r.status).toBe(200);
    expect(r.body.note).toMatchObject({ id, revision: 1, currentRevision: 2 });
    expect(r.body.lineCount).toBe(309);
    expect(r.body.headings).toEqual([
      { level: 1, text: "Title", line: 1 },
      { level: 2, text: "Setup", line: 4 },
      { level: 2, text: "Usage", line: 9 },
    ]);
    expect(r.text).not.toContain("row 17 hay");
    const current = await ok(`/api/notes/${id}/read`);
    expect(current).toMatchObject({ view: "overview", note: { revision: 2 }, lineCount: 2 });
  });

  test("lines: an exact 1-based inclusive range; over 200 lines is 413 range_too_large", async () => {
    const r = await ok(`/api/notes/${id}/read?view=lines&lines=10:12&revision=1`);
    expect(r.text).toBe("row 1 needle\nrow 2 hay\nrow 3 hay");
    expect(r).toMatchObject({ startLine: 10, endLine: 12 });
    const big = await call(`/api/notes/${id}/read?view=lines&lines=1:201&revision=1`);
    expect(big.status).toBe(413);
    expect(big.body.error).toBe("range_too_large");
    expect((await call(`/api/notes/${id}/read?view=lines&revision=1`)).status).toBe(400);
    expect((await call(`/api/notes/${id}/read?view=lines&lines=5:2`)).status).toBe(400);
  });

  test("lines: more than 32 KB in the range is 413 too", async () => {
    const wide = (await create({ title: "Wide", bodyMarkdown: Array.from({ length: 10 }, () => "w".repeat(5000)).join("\n") })).note.id;
    const r = await call(`/api/notes/${wide}/read?view=lines&lines=1:10`);
    expect(r.status).toBe(413);
    expect(r.body.error).toBe("range_too_large");
  });

  test("search: q required; matching line windows within the limits", async () => {
    expect((await call(`/api/notes/${id}/read?view=search&revision=1`)).status).toBe(400);
    const r = await ok(`/api/notes/${id}/read?view=search&q=NEEDLE&contextLines=1&revision=1`);
    expect(r.matchCount).toBe(6);
    expect(r.windows[0]).toMatchObject({ startLine: 9, endLine: 11, matchLines: [10] });
    expect(r.windows[0].text).toBe("## Usage\nrow 1 needle\nrow 2 hay");
  });

  test("a revision that does not exist answers 404", async () => {
    const r = await call(`/api/notes/${id}/read?revision=3`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
  });

  test("Accept: text/markdown gives a frontmatter document; note_<id> works on every route", async () => {
    const nid = (await create({ title: "Ünïcode: 日本語 \"quoted\" — ok", bodyMarkdown: "Body 🙂\n---\nnot frontmatter", tags: ["x"], properties: { nested: { a: [1, 2] } } })).note.id;
    const r = await call(`/api/notes/note_${nid}`, { headers: { accept: "text/markdown" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("text/markdown");
    const m = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(r.text);
    expect(m).not.toBeNull();
    const fm = parse(m![1]!);
    expect(fm).toMatchObject({ id: nid, title: "Ünïcode: 日本語 \"quoted\" — ok", revision: 1, tags: ["x"], properties: { nested: { a: [1, 2] } } });
    expect(m![2]).toBe("Body 🙂\n---\nnot frontmatter");
    expect((await call(`/api/notes/note_${nid}/read`)).status).toBe(200);
    expect((await call(`/api/notes/note_${nid}/history`)).status).toBe(200);
    expect((await call(`/api/notes/note_${nid}/append`, { method: "POST", json: { bodyMarkdown: "more" } })).status).toBe(200);
    // JSON stays the default.
    expect((await call(`/api/notes/${nid}`, { headers: { accept: "application/json, text/markdown" } })).body.note.id).toBe(nid);
  });

  test("unicode titles and bodies round-trip exactly", async () => {
    const title = "Ελληνικά · العربية · 👩‍👩‍👧 · \u200d zero-width";
    const text = "Combining: e\u0301 · CJK: 漢字 · emoji: 🏳️‍🌈\r\nwindows line\n\ttab";
    const nid = (await create({ title, bodyMarkdown: text })).note.id;
    const n = await note(nid);
    expect(n.title).toBe(title);
    expect(n.bodyMarkdown).toBe(text);
  });
});

describe("lists and search", () => {
  test("filters by project, kind, state, tags, repository and archived; limit/offset/count; include=content adds bodies", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await create({ title: `Listed ${i}`, bodyMarkdown: `list body ${i}`, kind: "listed", state: i % 2 ? "odd" : "even", tags: [i % 2 ? "odd" : "even"], repository: "git@github.com:acme/listed.git" })).note.id);
    }
    const page = await ok("/api/notes?kind=listed&limit=2&offset=1");
    expect(page).toMatchObject({ limit: 2, offset: 1, count: 5, nextOffset: 3 });
    expect(page.notes.map((n: any) => n.id)).toEqual([ids[3], ids[2]]);
    expect(page.notes[0].bodyMarkdown).toBeUndefined();
    expect((await ok("/api/notes?kind=listed&state=odd")).notes.map((n: any) => n.id)).toEqual([ids[3], ids[1]]);
    expect((await ok("/api/notes?kind=listed&tags=Even")).count).toBe(3);
    expect((await ok("/api/notes?repository=https://github.com/acme/listed")).count).toBe(5);
    const full = await ok("/api/notes?kind=listed&include=content&limit=1");
    expect(full.notes[0].bodyMarkdown).toBe("list body 4");
    for (const bad of ["limit=0", "limit=1001", "offset=-1", "archived=maybe", "include=everything"]) {
      const r = await call(`/api/notes?${bad}`);
      expect({ bad, status: r.status, error: r.body.error }).toEqual({ bad, status: 400, error: "validation_failed" });
    }
  });


});

describe("isolation and bad input", () => {
  test("another account's note is 404 on every route, and nothing changes", async () => {
    const id = (await create({ title: "Alice only", bodyMarkdown: "private" })).note.id;
    for (const [path, method, json] of [
      [`/api/notes/${id}`, "GET", undefined],
      [`/api/notes/${id}/read`, "GET", undefined],
      [`/api/notes/${id}/history`, "GET", undefined],
      [`/api/notes/${id}`, "PATCH", { expectedRevision: 1, title: "bob" }],
      [`/api/notes/${id}/append`, "POST", { bodyMarkdown: "bob" }],
      [`/api/notes/${id}/archive`, "POST", { expectedRevision: 1 }],
      [`/api/notes/${id}/restore`, "POST", { expectedRevision: 1 }],
      [`/api/notes/${id}/revisions/1/restore`, "POST", { expectedRevision: 1 }],
    ] as const) {
      const r = await call(path, { method, json, key: bobKey });
      expect({ path, method, status: r.status, error: r.body.error }).toEqual({ path, method, status: 404, error: "not_found" });
    }
    expect((await ok("/api/notes?limit=1000", { key: bobKey })).notes.map((n: any) => n.id)).not.toContain(id);
    expect((await ok("/api/notes/search?q=private", { key: bobKey })).results.map((r: any) => r.id)).not.toContain(id);
    expect(await note(id)).toMatchObject({ title: "Alice only", bodyMarkdown: "private", currentRevision: 1 });
  });

  test("hostile ids answer 400 or 404, never 5xx", async () => {
    for (const id of ["..%2F..%2Fetc", "note_", "%00", "x".repeat(70), "'; drop table notes.notes; --", "note_note_x"]) {
      const r = await call(`/api/notes/${id}`);
      expect({ id, ok: [400, 404].includes(r.status), json: typeof r.body === "object" }).toEqual({ id, ok: true, json: true });
    }
  });

  test("a 2 MB body is accepted and reads back exactly; past the note limit is a clear 413", async () => {
    const big = "ä".repeat(1024 * 1024); // 2 MiB of UTF-8
    const id = (await create({ title: "Big", bodyMarkdown: big })).note.id;
    expect((await note(id)).bodyMarkdown.length).toBe(big.length);
    const over = await call(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: big } });
    expect(over.status).toBe(413);
    expect(over.body.error).toBe("payload_too_large");
    expect((await note(id)).currentRevision).toBe(1);
  });

  test("bad metadata answers 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "" }, "title"],
      [{ title: "x", kind: "Not A Slug" }, "kind"],
      [{ title: "x", repository: "not-a-repository" }, "repository"],
      [{ title: "x", project: "no-such-project" }, "project"],
      [{ title: "x", properties: { big: "p".repeat(70_000) } }, "properties"],
      [{ title: "x", tags: "a,b" }, "tags"],
    ];
    for (const [json, field] of cases) {
      const r = await call("/api/notes", { method: "POST", json });
      expect({ json: Object.keys(json), status: r.status, error: r.body.error }).toEqual({ json: Object.keys(json), status: 400, error: "validation_failed" });
      expect(JSON.stringify(r.body)).toContain(field);
    }
  });
});
