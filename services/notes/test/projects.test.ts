// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. Projects:
// create, read, change, archive; validation; ownership between accounts; repository claims, also under races.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

/** A repository address no other test uses. */
let repoCounter = 0;
const uniqueRepo = () => `https://github.com/projects-test/repo-${++repoCounter}-${crypto.randomUUID().slice(0, 8)}`;

async function create(json: Record<string, unknown>, key?: string) {
  const res = await trove.api("/api/projects", { method: "POST", json, key });
  return { status: res.status, body: await res.json() };
}
async function patch(id: string, json: Record<string, unknown>, key?: string) {
  const res = await trove.api(`/api/projects/${id}`, { method: "PATCH", json, key });
  return { status: res.status, body: await res.json() };
}
async function remove(id: string, key?: string) {
  const res = await trove.api(`/api/projects/${id}`, { method: "DELETE", key });
  return { status: res.status, body: await res.json() };
}
async function get(id: string, key?: string) {
  const res = await trove.api(`/api/projects/${id}`, { key });
  return { status: res.status, body: await res.json() };
}
async function list(query = "", key?: string) {
  const res = await trove.api(`/api/projects${query}`, { key });
  expect(res.status).toBe(200);
  return res.json();
}
async function listAll(query = "", key?: string): Promise<any[]> {
  return (await list(`?limit=1000${query}`, key)).projects;
}

describe("creating and reading projects", () => {
  test("create answers the project; get and list show the same record", async () => {
    const before = Math.floor(Date.now() / 1000);
    const repo = uniqueRepo();
    const { status, body } = await create({ name: " Widget ", description: "the widget app", color: "#1a2B3c", state: "paused", repositories: [repo] });
    expect(status).toBe(200);
    expect(body.project).toMatchObject({
      name: "Widget",
      description: "the widget app",
      color: "#1a2B3c",
      state: "paused",
      repositories: [repo],
      archived: false,
      archivedAt: null,
    });
    expect(body.project.id).toBeString();
    expect(body.project.createdAt).toBeGreaterThanOrEqual(before);
    expect(body.project.updatedAt).toBe(body.project.createdAt);
    expect(await get(body.project.id)).toEqual({ status: 200, body });
    expect((await listAll()).find((p) => p.id === body.project.id)).toEqual(body.project);
  });

  test("defaults: empty description, no color, active, no repositories", async () => {
    const { status, body } = await create({ name: "Bare" });
    expect(status).toBe(200);
    expect(body.project).toMatchObject({ name: "Bare", description: "", color: null, state: "active", repositories: [], archived: false });
  });

  test("repositories are kept as given, one per repository however it is spelled", async () => {
    const { status, body } = await create({
      name: "Spellings",
      repositories: [" https://github.com/spell/one ", "git@github.com:spell/one.git", "github.com/Spell/One", "git@gitlab.com:spell/two.git", "https://gitlab.com/spell/two"],
    });
    expect(status).toBe(200);
    expect(body.project.repositories).toEqual(["https://github.com/spell/one", "git@gitlab.com:spell/two.git"]);
  });

  test("color is a hex code (#rgb or #rrggbb)", async () => {
    for (const color of ["#fff", "#A1b2C3", null]) {
      const { status, body } = await create({ name: "Colored", color });
      expect({ color, status }).toEqual({ color, status: 200 });
      expect(body.project.color).toBe(color);
    }
    for (const color of ["red", "#ffff", "fff", "#ggg", "#12345", "#1234567", "", "rgb(1,2,3)", 123]) {
      const { status, body } = await create({ name: "Colored", color });
      expect({ color, status, error: body.error }).toEqual({ color, status: 400, error: "validation_failed" });
    }
  });

  test("state is active, paused or completed", async () => {
    for (const state of ["active", "paused", "completed"]) {
      const { status, body } = await create({ name: `State ${state}`, state });
      expect(status).toBe(200);
      expect(body.project.state).toBe(state);
    }
    for (const state of ["archived", "done", "ACTIVE", "", null]) {
      const { status, body } = await create({ name: "State", state });
      expect({ state, status, error: body.error }).toEqual({ state, status: 400, error: "validation_failed" });
    }
  });

  test("bad input: no name, a blank name, a repository address that names no repository", async () => {
    for (const json of [{}, { name: "" }, { name: "   " }, { name: 42 }, { name: "x", description: 5 }, { name: "x", repositories: "github.com/a/b" }]) {
      const { status, body } = await create(json);
      expect({ json, status, error: body.error }).toEqual({ json, status: 400, error: "validation_failed" });
    }
    for (const bad of ["not a repository", "github.com/only-owner", "C:\\src\\repo", "file:///home/me/repo"]) {
      const { status, body } = await create({ name: "Bad repo", repositories: [uniqueRepo(), bad] });
      expect({ bad, status, error: body.error }).toEqual({ bad, status: 400, error: "validation_failed" });
      expect(body.fields.repositories).toContain(JSON.stringify(bad));
    }
  });

  test("unknown and hostile ids answer 404 or 400, never 5xx", async () => {
    expect((await get("0193f1d2-aaaa-7bbb-8ccc-000000000001")).status).toBe(404);
    expect((await patch("0193f1d2-aaaa-7bbb-8ccc-000000000001", { name: "x" })).status).toBe(404);
    expect((await remove("0193f1d2-aaaa-7bbb-8ccc-000000000001")).status).toBe(404);
    for (const id of ["..%2F..%2Fetc", "a%27%3B%20drop%20table", "x".repeat(65)]) {
      const res = await trove.api(`/api/projects/${id}`);
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
    }
  });
});

describe("listing", () => {
  test("most recently updated first, with limit, offset and count", async () => {
    for (let i = 0; i < 3; i++) await create({ name: `Listed ${i}` });
    const all = await list("?limit=1000");
    expect(all.count).toBe(all.projects.length);
    expect(all.projects.every((p: any) => !p.archived)).toBe(true);
    // updatedAt descending; ties (the same second) by id descending.
    for (let i = 1; i < all.projects.length; i++) {
      const [a, b] = [all.projects[i - 1], all.projects[i]];
      expect(a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.id > b.id)).toBe(true);
    }
    const page = await list("?limit=2&offset=1");
    expect(page).toMatchObject({ limit: 2, offset: 1, count: all.count });
    expect(page.projects.map((p: any) => p.id)).toEqual(all.projects.slice(1, 3).map((p: any) => p.id));
    const defaults = await list();
    expect(defaults).toMatchObject({ limit: 200, offset: 0 });
    for (const q of ["?limit=0", "?limit=1001", "?offset=-1", "?limit=x", "?includeArchived=maybe"]) {
      const res = await trove.api(`/api/projects${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
  });

  test("a project changed last comes first", async () => {
    const older = (await create({ name: "Touched later" })).body.project;
    const newer = (await create({ name: "Made later" })).body.project;
    // Fixture: both were last changed long ago, the second one later than the first.
    await trove.db.updateTable("notes.projects").set({ updated_at: 1_000_000 }).where("id", "=", older.id).execute();
    await trove.db.updateTable("notes.projects").set({ updated_at: 2_000_000 }).where("id", "=", newer.id).execute();
    const ids = () => listAll().then((ps) => ps.map((p) => p.id).filter((id) => id === older.id || id === newer.id));
    expect(await ids()).toEqual([newer.id, older.id]);
    const touched = (await patch(older.id, { description: "touched" })).body.project;
    expect(touched.updatedAt).toBeGreaterThan(2_000_000);
    expect(await ids()).toEqual([older.id, newer.id]);
  });
});

describe("changing projects", () => {
  test("PATCH changes only the supplied fields", async () => {
    const repo = uniqueRepo();
    // Paused, so that a PATCH without a state which put back a default would show.
    const made = (await create({ name: "Patch me", description: "d", color: "#abc", state: "paused", repositories: [repo] })).body.project;
    const renamed = await patch(made.id, { name: "Patched" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.project).toEqual({ ...made, name: "Patched", updatedAt: renamed.body.project.updatedAt });
    expect(renamed.body.project.updatedAt).toBeGreaterThanOrEqual(made.updatedAt);

    const more = (await patch(made.id, { description: "", color: null, state: "completed" })).body.project;
    expect(more).toMatchObject({ name: "Patched", description: "", color: null, state: "completed", repositories: [repo] });

    const repo2 = uniqueRepo();
    const moved = (await patch(made.id, { repositories: [repo2, `${repo2}.git`] })).body.project;
    expect(moved.repositories).toEqual([repo2]);
    expect(moved).toMatchObject({ name: "Patched", state: "completed" });

    const cleared = (await patch(made.id, { repositories: [] })).body.project;
    expect(cleared.repositories).toEqual([]);

    const same = await patch(made.id, {});
    expect(same).toEqual({ status: 200, body: { project: cleared } });
    expect((await get(made.id)).body.project).toEqual(cleared);
  });

  test("PATCH validates like create", async () => {
    const made = (await create({ name: "Validate" })).body.project;
    for (const json of [{ name: "" }, { name: "  " }, { color: "blue" }, { state: "archived" }, { repositories: ["nope"] }, { description: null }]) {
      const { status, body } = await patch(made.id, json);
      expect({ json, status, error: body.error }).toEqual({ json, status: 400, error: "validation_failed" });
    }
    expect((await get(made.id)).body.project).toEqual(made);
  });
});

describe("archiving", () => {
  test("DELETE archives: gone from the list, listed with includeArchived, still readable; notes stay", async () => {
    const repo = uniqueRepo();
    const made = (await create({ name: "To archive", repositories: [repo] })).body.project;
    const note = await trove.api("/api/notes", { method: "POST", json: { title: "Belongs to the project", bodyMarkdown: "text", project: made.id } });
    expect(note.status).toBe(200);
    const noteId = (await note.json()).note.id;

    const archived = await remove(made.id);
    expect(archived.status).toBe(200);
    expect(archived.body.project).toEqual({ ...made, archived: true, archivedAt: archived.body.project.archivedAt, updatedAt: archived.body.project.updatedAt });
    expect(archived.body.project.archivedAt).toBeGreaterThanOrEqual(made.createdAt);

    expect((await listAll()).some((p) => p.id === made.id)).toBe(false);
    expect((await listAll("&includeArchived=false")).some((p) => p.id === made.id)).toBe(false);
    expect((await listAll("&includeArchived=true")).find((p) => p.id === made.id)).toEqual(archived.body.project);
    expect((await get(made.id)).body.project).toEqual(archived.body.project);
    const counts = [(await list()).count, (await list("?includeArchived=true")).count];
    expect(counts[1]).toBeGreaterThan(counts[0]);

    // Its notes are neither deleted nor moved.
    const got = await trove.api(`/api/notes/${noteId}`);
    expect(got.status).toBe(200);
    expect((await got.json()).note.project).toBe(made.id);

    // Archiving again is fine and answers the same archived project.
    expect(await remove(made.id)).toEqual(archived);
  });

  test("an archived project does not change", async () => {
    const made = (await create({ name: "Frozen" })).body.project;
    const archived = (await remove(made.id)).body.project;
    const { status, body } = await patch(made.id, { name: "Thawed" });
    expect({ status, error: body.error }).toEqual({ status: 409, error: "invalid_state" });
    expect((await get(made.id)).body.project).toEqual(archived);
  });
});

describe("accounts", () => {
  test("another account's project is 404 on get, patch and delete, and never listed", async () => {
    const mine = (await create({ name: "Alice's secret project" })).body.project;
    expect((await get(mine.id, bobKey)).status).toBe(404);
    const patched = await patch(mine.id, { name: "Bob was here" }, bobKey);
    expect({ status: patched.status, error: patched.body.error }).toEqual({ status: 404, error: "not_found" });
    expect((await remove(mine.id, bobKey)).status).toBe(404);
    expect((await get(mine.id)).body.project).toEqual(mine);

    const bobs = (await create({ name: "Bob's project" }, bobKey)).body.project;
    const seenByBob = await listAll("&includeArchived=true", bobKey);
    expect(seenByBob.map((p) => p.id)).toEqual([bobs.id]);
    expect((await listAll("&includeArchived=true")).some((p) => p.id === bobs.id)).toBe(false);
    expect(JSON.stringify(seenByBob)).not.toContain("Alice's secret project");
  });

  test("a note's project must be a project of the same account", async () => {
    const bobs = (await create({ name: "Bob's notes project" }, bobKey)).body.project;
    const refused = await trove.api("/api/notes", { method: "POST", json: { title: "Into Bob's project", bodyMarkdown: "x", project: bobs.id } });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toBe("validation_failed");
    expect(body.fields.project).toBeString();

    const unknown = await trove.api("/api/notes", { method: "POST", json: { title: "Into nothing", bodyMarkdown: "x", project: "no-such-project" } });
    expect(unknown.status).toBe(400);

    const mine = (await create({ name: "Alice's notes project" })).body.project;
    const made = await trove.api("/api/notes", { method: "POST", json: { title: "Into my project", bodyMarkdown: "x", project: mine.id } });
    expect(made.status).toBe(200);
    const noteId = (await made.json()).note.id;
    const moved = await trove.api(`/api/notes/${noteId}`, { method: "PATCH", json: { expectedRevision: 1, project: bobs.id } });
    expect(moved.status).toBe(400);
    expect((await (await trove.api(`/api/notes/${noteId}`)).json()).note.project).toBe(mine.id);
  });
});

describe("repository claims", () => {
  test("a repository another live project holds answers 409 repository_claimed naming that project", async () => {
    const repo = uniqueRepo();
    const [, owner, name] = /github\.com\/([^/]+)\/(.+)$/.exec(repo)!;
    const holder = (await create({ name: "Holder", repositories: [repo] })).body.project;
    const before = await list("?includeArchived=true");

    for (const spelling of [repo, `${repo}.git`, `git@github.com:${owner}/${name}.git`, `github.com/${owner}/${name}`]) {
      const { status, body } = await create({ name: "Claimer", repositories: [uniqueRepo(), spelling] });
      expect({ spelling, status, error: body.error, projectId: body.projectId }).toEqual({ spelling, status: 409, error: "repository_claimed", projectId: holder.id });
      expect(body.repository).toBe(spelling);
      expect(body.repositoryKey).toBe(`github.com/${owner}/${name}`.toLowerCase());
    }
    // Nothing of a refused create stays: no project, and the other repository it named is still free.
    expect((await list("?includeArchived=true")).count).toBe(before.count);

    const other = (await create({ name: "Other", repositories: [uniqueRepo()] })).body.project;
    const refused = await patch(other.id, { repositories: [...other.repositories, `${repo}.git`], name: "Renamed too" });
    expect({ status: refused.status, error: refused.body.error, projectId: refused.body.projectId }).toEqual({ status: 409, error: "repository_claimed", projectId: holder.id });
    expect((await get(other.id)).body.project).toEqual(other);

    // The holder itself may name it again in another spelling.
    const respelled = await patch(holder.id, { repositories: [`git@github.com:${owner}/${name}.git`] });
    expect(respelled.status).toBe(200);
    expect(respelled.body.project.repositories).toEqual([`git@github.com:${owner}/${name}.git`]);
  });

  test("another account claims the same repository freely", async () => {
    const repo = uniqueRepo();
    expect((await create({ name: "Alice holds", repositories: [repo] })).status).toBe(200);
    const bobs = await create({ name: "Bob holds too", repositories: [repo] }, bobKey);
    expect(bobs.status).toBe(200);
    expect(bobs.body.project.repositories).toEqual([repo]);
  });

  test("archiving a project frees its repositories; removing one from a project frees it too", async () => {
    const [a, b] = [uniqueRepo(), uniqueRepo()];
    const first = (await create({ name: "First holder", repositories: [a, b] })).body.project;
    expect((await create({ name: "Waiting", repositories: [a] })).status).toBe(409);

    expect((await patch(first.id, { repositories: [b] })).status).toBe(200);
    const second = await create({ name: "Second holder", repositories: [a] });
    expect(second.status).toBe(200);

    expect((await create({ name: "Waiting for b", repositories: [b] })).status).toBe(409);
    expect((await remove(first.id)).status).toBe(200);
    const third = await create({ name: "Third holder", repositories: [b] });
    expect(third.status).toBe(200);
    // The archived project still lists its repositories as a record; it holds none of them.
    expect((await get(first.id)).body.project.repositories).toEqual([b]);
    expect((await remove(first.id)).status).toBe(200);
  });

  test("parallel creates claiming the same repository: exactly one wins", async () => {
    const repo = uniqueRepo();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ name: `Racer ${i}`, repositories: [i % 2 ? repo : `${repo}.git`] })));
    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost.map((r) => [r.status, r.body.error, r.body.projectId])).toEqual(lost.map(() => [409, "repository_claimed", won[0]!.body.project.id]));
    const racers = (await listAll("&includeArchived=true")).filter((p) => p.name.startsWith("Racer "));
    expect(racers.map((p) => p.id)).toEqual([won[0]!.body.project.id]);
    await remove(won[0]!.body.project.id);
  });

  test("parallel claims of overlapping sets in opposite orders: one wins, none fails otherwise", async () => {
    const [x, y] = [uniqueRepo(), uniqueRepo()];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `Crossing ${i}`, repositories: i % 2 ? [x, y] : [y, x] })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error === "repository_claimed")).toBe(true);
  });

  test("parallel PATCHes of different projects claiming the same repository: exactly one wins", async () => {
    const repo = uniqueRepo();
    const projects = [];
    for (let i = 0; i < 8; i++) projects.push((await create({ name: `Patcher ${i}`, repositories: [uniqueRepo()] })).body.project);
    const results = await Promise.all(projects.map((p) => patch(p.id, { repositories: [...p.repositories, repo] })));
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const winner = won[0]!.body.project.id;
    for (const r of results.filter((r) => r.status !== 200)) expect([r.status, r.body.error, r.body.projectId]).toEqual([409, "repository_claimed", winner]);
    // The losers kept what they had.
    for (const p of projects.filter((p) => p.id !== winner)) expect((await get(p.id)).body.project).toEqual(p);
  });

  test("archiving the holder while others claim: every claim waits its turn, at most one holds afterwards", async () => {
    const repo = uniqueRepo();
    const holder = (await create({ name: "Leaving", repositories: [repo] })).body.project;
    const [archived, ...claims] = await Promise.all([remove(holder.id), ...Array.from({ length: 6 }, (_, i) => create({ name: `Arriving ${i}`, repositories: [repo] }))]);
    expect(archived.status).toBe(200);
    expect(claims.every((r) => r.status === 200 || (r.status === 409 && r.body.error === "repository_claimed"))).toBe(true);
    expect(claims.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    // Whoever holds it now (or nobody), one more claim either wins alone or names that holder.
    const winner = claims.find((r) => r.status === 200)?.body.project.id;
    const last = await create({ name: "Arriving last", repositories: [repo] });
    if (winner) expect([last.status, last.body.projectId]).toEqual([409, winner]);
    else expect(last.status).toBe(200);
  });
});
