// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP; the database
// is touched only to age fixtures (updated_at) and to set up a large project. The context brief: which notes it
// holds, how it ranks them, what it never carries, and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

/** Put in every note body: the brief must never carry it. */
const bodyMarker = `BODY-MARKER-${crypto.randomUUID()}`;

async function project(json: Record<string, unknown>, key?: string): Promise<any> {
  const res = await trove.api("/api/projects", { method: "POST", json, key });
  expect(res.status).toBe(200);
  return (await res.json()).project;
}

async function note(json: Record<string, unknown>, key?: string): Promise<string> {
  const res = await trove.api("/api/notes", { method: "POST", json: { bodyMarkdown: `# Body\n\n${bodyMarker}\n`, ...json }, key });
  expect(res.status).toBe(200);
  return (await res.json()).note.id;
}

/** Fixture: the note was last changed `secondsAgo` before now (the API writes only the current second). */
async function age(id: string, secondsAgo: number) {
  await trove.db
    .updateTable("notes.notes")
    .set({ updated_at: Math.floor(Date.now() / 1000) - secondsAgo })
    .where("id", "=", id)
    .execute();
}

async function brief(query: Record<string, string | number>, key?: string) {
  const res = await trove.api(`/api/context/brief?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, { key });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

describe("a project's brief", () => {
  const repo = "https://github.com/acme/widget";
  let p: any;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    p = await project({ name: "Widget", description: "the widget app", state: "active", repositories: [repo] });
    ids.api = await note({ title: "API design", project: p.id, paths: ["src/api/"], kind: "decision", state: "active", tags: ["API", "design"], properties: { description: "How the HTTP API is laid out", owner: "ops" } });
    ids.docs = await note({ title: "Docs plan", project: p.id, paths: ["docs/"], properties: { description: 42 } });
    // Not in the project, but about the repository (another spelling of it).
    ids.routes = await note({ title: "Routes file", repository: "git@github.com:acme/widget.git", paths: ["src/api/routes.ts"] });
    ids.src = await note({ title: "Source layout", project: p.id, paths: ["./src"] });
    ids.none = await note({ title: "No paths", project: p.id });
    ids.archived = await note({ title: "Archived note", project: p.id, paths: ["src/api/routes.ts"] });
    const archived = await trove.api(`/api/notes/${ids.archived}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    expect(archived.status).toBe(200);
    // Elsewhere: another repository, and Bob's note on the same repository.
    ids.other = await note({ title: "Other repository", repository: "https://github.com/acme/other", paths: ["src/api/routes.ts"] });
    ids.bob = await note({ title: "Bob's widget note", repository: repo, paths: ["src/api/routes.ts"] }, bobKey);
    // Recency, oldest to newest: docs, routes, src, api, none.
    await age(ids.docs!, 5000);
    await age(ids.routes!, 4000);
    await age(ids.src!, 3000);
    await age(ids.api!, 2000);
    await age(ids.none!, 1000);
  });

  test("without a path: the current notes of the project and of the repository, newest first", async () => {
    const { status, body, text } = await brief({ project: repo });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      repository: "github.com/acme/widget",
      project: { id: p.id, name: "Widget", description: "the widget app", state: "active" },
      path: null,
      count: 5,
      limit: 10,
    });
    expect(body.notes.map((n: any) => n.id)).toEqual([ids.none, ids.api, ids.src, ids.routes, ids.docs]);
    expect(body.notes.every((n: any) => n.pathAffinity === 0)).toBe(true);
    // Archived notes, other repositories and other accounts stay out; no body ever appears.
    for (const left of ["Archived note", "Other repository", "Bob's widget note"]) expect(text).not.toContain(left);
    expect(text).not.toContain(bodyMarker);
    expect(text).not.toContain("# Body");
  });

  test("each note: ids, title, description, kind, state, paths, tags, revision, updated time, stable URL", async () => {
    const { body, text } = await brief({ project: repo, path: "src/api/routes.ts" });
    const api = body.notes.find((n: any) => n.id === ids.api);
    expect(api).toEqual({
      id: ids.api,
      title: "API design",
      description: "How the HTTP API is laid out",
      kind: "decision",
      state: "active",
      paths: ["src/api/"],
      tags: ["api", "design"],
      revision: 1,
      updatedAt: api.updatedAt,
      url: `/api/notes/${ids.api}`,
      pathAffinity: 0.7,
    });
    // Other custom properties are not part of the brief; a description that is not a string is none.
    expect(text).not.toContain('"owner"');
    expect(body.notes.find((n: any) => n.id === ids.docs).description).toBeNull();
    expect(body.notes.find((n: any) => n.id === ids.none)).toMatchObject({ description: null, kind: null, state: null, paths: [], tags: [] });
    const got = await trove.api(api.url);
    expect(got.status).toBe(200);
    expect((await got.json()).note.id).toBe(ids.api);
  });

  test("with a path: the file itself, then its folder, then folders above it, then the rest by recency", async () => {
    const { body, text } = await brief({ project: repo, path: "src/api/routes.ts" });
    expect(body.path).toBe("src/api/routes.ts");
    expect(body.notes.map((n: any) => [n.title, n.pathAffinity])).toEqual([
      ["Routes file", 1],
      ["API design", 0.7],
      ["Source layout", 0.45],
      ["No paths", 0],
      ["Docs plan", 0],
    ]);
    expect(text).not.toContain(bodyMarker);
  });

  test("a note about src/api/ ranks above one about docs/ however recent the docs note is", async () => {
    const fresh = await note({ title: "Fresh docs note", project: p.id, paths: ["docs/intro.md"] });
    try {
      const { body } = await brief({ project: repo, path: "src/api/handlers/users.ts" });
      const order = body.notes.map((n: any) => n.title);
      expect(order.indexOf("API design")).toBeLessThan(order.indexOf("Fresh docs note"));
      expect(order.slice(0, 3)).toEqual(["API design", "Source layout", "Fresh docs note"]);
      expect(body.notes.find((n: any) => n.title === "API design").pathAffinity).toBeCloseTo(0.2 + 0.5 * (2 / 3), 3);
      // A folder path ranks notes inside it right after the folder itself.
      const folder = await brief({ project: repo, path: "/src/api/" });
      expect(folder.body.path).toBe("src/api/");
      expect(folder.body.notes.slice(0, 3).map((n: any) => [n.title, n.pathAffinity])).toEqual([
        ["API design", 1],
        ["Routes file", 0.75],
        ["Source layout", 0.7],
      ]);
    } finally {
      await trove.api(`/api/notes/${fresh}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    }
  });

  test("the four spellings of the repository give the same brief", async () => {
    const spellings = ["https://github.com/acme/widget", "https://github.com/acme/widget.git", "git@github.com:acme/widget.git", "github.com/acme/widget"];
    const briefs = await Promise.all(spellings.map((project) => brief({ project, path: "src/api/routes.ts" })));
    for (const b of briefs) {
      expect(b.status).toBe(200);
      expect(b.body).toEqual(briefs[0]!.body);
    }
    expect(briefs[0]!.body.notes).toHaveLength(5);
  });

  test("limit: at most that many notes; count says how many there are", async () => {
    const { body } = await brief({ project: repo, limit: 2, path: "src/api/routes.ts" });
    expect(body).toMatchObject({ limit: 2, count: 5 });
    expect(body.notes.map((n: any) => n.title)).toEqual(["Routes file", "API design"]);
    expect((await brief({ project: repo, limit: 20 })).status).toBe(200);
  });

  test("Bob's brief of the same repository holds only Bob's note", async () => {
    const { status, body, text } = await brief({ project: repo }, bobKey);
    expect(status).toBe(200);
    expect(body).toMatchObject({ repository: "github.com/acme/widget", project: null, count: 1 });
    expect(body.notes.map((n: any) => n.id)).toEqual([ids.bob]);
    expect(text).not.toContain("Widget");
  });
});

describe("what the brief answers for", () => {
  test("an unknown repository: an empty brief, not an error", async () => {
    for (const project of ["https://github.com/nobody/nothing", "git@git.example.test:team/unknown.git"]) {
      const { status, body } = await brief({ project, path: "src/x.ts" });
      expect(status).toBe(200);
      expect(body).toEqual({ repository: expect.any(String), project: null, path: "src/x.ts", notes: [], count: 0, limit: 10 });
    }
  });

  test("a repository named only by notes: their brief, without a project", async () => {
    const id = await note({ title: "Loose note", repository: "https://gitlab.com/group/sub/loose.git", paths: ["README.md"] });
    const { body } = await brief({ project: "https://gitlab.com/group/sub/loose/-/tree/main", path: "README.md" });
    expect(body).toMatchObject({ repository: "gitlab.com/group/sub/loose", project: null, count: 1 });
    expect(body.notes.map((n: any) => [n.id, n.pathAffinity])).toEqual([[id, 1]]);
  });

  test("an archived project's notes leave the brief with it; notes naming the repository stay", async () => {
    const repo = "https://github.com/acme/retired";
    const p = await project({ name: "Retired", repositories: [repo] });
    const inProject = await note({ title: "Retired project note", project: p.id });
    const byRepository = await note({ title: "Retired repository note", repository: repo });
    expect((await brief({ project: repo })).body.count).toBe(2);
    expect((await trove.api(`/api/projects/${p.id}`, { method: "DELETE" })).status).toBe(200);
    const after = await brief({ project: repo });
    expect(after.body).toMatchObject({ project: null, count: 1 });
    expect(after.body.notes.map((n: any) => n.id)).toEqual([byRepository]);
    expect(after.text).not.toContain(inProject);
  });

  test("a big project: the brief holds the top notes of thousands, ranked in the database", async () => {
    const p = await project({ name: "Big", repositories: ["github.com/acme/big"] });
    const account = (await trove.db.selectFrom("notes.projects").select("account_id").where("id", "=", p.id).executeTakeFirstOrThrow()).account_id;
    // Fixture: 3,000 notes of the project, most about docs/, written straight into the table.
    const now = Math.floor(Date.now() / 1000);
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      id: `big-${String(i).padStart(5, "0")}-${crypto.randomUUID().slice(0, 8)}`,
      account_id: account,
      title: `Big note ${i}`,
      body: `${bodyMarker} ${i}`,
      project_id: p.id,
      paths: JSON.stringify(i === 1234 ? ["lib/core/"] : i % 100 === 0 ? ["lib/"] : ["docs/"]),
      current_revision: 1,
      bytes: 10,
      line_count: 1,
      snapshot_revision: 1,
      snapshot_bytes: 10,
      created_at: now - 10_000,
      updated_at: now - 10_000 + i,
    }));
    for (let i = 0; i < rows.length; i += 500) await trove.db.insertInto("notes.notes").values(rows.slice(i, i + 500)).execute();
    const { status, body, text } = await brief({ project: "github.com/acme/big", path: "lib/core/engine.ts", limit: 20 });
    expect(status).toBe(200);
    expect(body.count).toBe(3000);
    expect(body.notes).toHaveLength(20);
    expect(body.notes[0].title).toBe("Big note 1234");
    // Then the notes about lib/, newest first.
    expect(body.notes.slice(1, 4).map((n: any) => n.title)).toEqual(["Big note 2900", "Big note 2800", "Big note 2700"]);
    expect(text).not.toContain(bodyMarker);
  });
});

describe("bad input", () => {
  test("an address that names no repository is 400 validation_failed", async () => {
    for (const project of ["not a repository", "github.com/only-owner", "C:\\src\\repo", "file:///home/me/repo"]) {
      const { status, body } = await brief({ project });
      expect({ project, status, error: body.error }).toEqual({ project, status: 400, error: "validation_failed" });
      expect(body.fields.project).toBeString();
    }
  });

  test("limit above 20, zero, negative or not a number; a missing project", async () => {
    for (const limit of [21, 100, 0, -1, "x", 2.5]) {
      const { status, body } = await brief({ project: "github.com/acme/widget", limit });
      expect({ limit, status, error: body.error }).toEqual({ limit, status: 400, error: "validation_failed" });
    }
    expect((await brief({})).status).toBe(400);
    expect((await brief({ project: "" })).status).toBe(400);
  });

  test("the brief needs a key", async () => {
    const res = await trove.api("/api/context/brief?project=github.com/acme/widget", { key: null });
    expect(res.status).toBe(401);
  });
});
