// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP; the items
// service's own checks are also called over the bus as a scoped caller, the way a gateway would call them.
// What a client key scoped to tags or to one collection may do: work on the items in its scope, save into it, and
// see only that part of the library; what belongs to the whole library (tag and collection definitions, the
// owner's email) stays out of its reach.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { accountCallerSubject, subjectOf, type Caller } from "@trove/contracts";
import { callerHeaders } from "@trove/host";
import { addClientKey, heldTitle, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";

let trove: TestTrove;
let pages: PageServer;
let alice: Caller;
beforeAll(async () => {
  pages = startPageServer();
  // A save waits for its capture as long as the test holds the page (see the race below), never for a clock; the
  // exports a test starts are never refused for the ones still running.
  trove = await startTrove({ TROVE_INGEST_WAIT_MS: "60000", TROVE_MAX_OPEN_JOBS: "100" });
  const { id } = await trove.db.selectFrom("gateway.accounts").select("id").where("email", "=", "alice@example.test").executeTakeFirstOrThrow();
  alice = (await trove.bus.request(accountCallerSubject, { accountId: id })) as Caller;
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

const page = (title: string, words: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${words.repeat(4)}</p></article></body></html>`;

const ok = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
let n = 0;
/** Alice saves a page with these tags and collections (names); answers its id and URL. */
async function saved(labels: { tags?: string[]; collections?: string[] } = {}): Promise<{ id: string; url: string }> {
  const url = `https://scope.example.test/page/${n++}`;
  const { id } = await ok("/api/ingest", { method: "POST", json: { url, html: page(`Page ${n}`, "Words the owner saved and keeps. ") } });
  if (labels.tags || labels.collections) {
    await ok(`/api/items/${id}`, { method: "POST", json: { ...(labels.tags ? { tags: labels.tags } : {}), ...(labels.collections ? { collectionIds: labels.collections } : {}) } });
  }
  return { id, url };
}
const collection = async (name: string): Promise<string> => (await ok("/api/collections", { method: "POST", json: { name } })).collection.id;
const asKey = (key: string) => ({ key });

describe("account-wide changes need a whole-library key", () => {
  test("a tag-scoped key can neither rename, describe, create nor delete a tag; the owner's items and notes keep theirs", async () => {
    const outside = await saved({ tags: ["private-stuff"] });
    await saved({ tags: ["in"] });
    const note = (await ok("/api/notes", { method: "POST", json: { title: "Private note", tags: ["private-stuff"] } })).note;
    const key = await addClientKey(trove, { scope: { tagSlugs: ["in"] } });
    const tries: [string, string, unknown][] = [
      ["PATCH", "/api/tags/private-stuff", { name: "Renamed by a client" }],
      ["PATCH", "/api/tags/private-stuff", { description: "described by a client" }],
      ["DELETE", "/api/tags/private-stuff", undefined],
      ["PATCH", "/api/tags/in", { name: "Its own scope renamed" }],
      ["DELETE", "/api/tags/in", undefined],
      ["POST", "/api/tags", { name: "private stuff" }],
    ];
    for (const [method, path, json] of tries) {
      const res = await trove.api(path, { method, key, json });
      expect({ method, path, status: res.status, error: (await res.json()).error }).toEqual({ method, path, status: 403, error: "forbidden" });
    }
    const item = await ok(`/api/items/${outside.id}`);
    expect({ tags: item.tags, tagSlugs: item.tagSlugs }).toEqual({ tags: ["private-stuff"], tagSlugs: ["private-stuff"] });
    const tags = (await ok("/api/tags")).tags as { slug: string; name: string; description?: string }[];
    expect(tags.find((t) => t.slug === "private-stuff")).toEqual({ name: "private-stuff", slug: "private-stuff", itemCount: 1 } as never);
    expect(tags.find((t) => t.slug === "in")?.name).toBe("in");
    expect((await ok(`/api/notes/${note.id}`)).note.tags).toEqual(["private-stuff"]);
  });

  test("a collection-scoped key cannot delete the tag another client is scoped to, so that client keeps its library", async () => {
    const shelf = await collection("Shelf of one client");
    const team = await saved({ tags: ["team-reading"] });
    await saved({ collections: [shelf] });
    const teamKey = await addClientKey(trove, { scope: { tagSlugs: ["team-reading"] } });
    const shelfKey = await addClientKey(trove, { scope: { collectionId: shelf } });
    const res = await trove.api("/api/tags/team-reading", { method: "DELETE", key: shelfKey });
    expect(res.status).toBe(403);
    const seen = await ok("/api/items?limit=100", asKey(teamKey));
    expect(seen.items.map((i: { id: string }) => i.id)).toEqual([team.id]);
  });

  test("creating a collection needs a whole-library key", async () => {
    const key = await addClientKey(trove, { scope: { tagSlugs: ["in"] } });
    const res = await trove.api("/api/collections", { method: "POST", key, json: { name: "Made by a client" } });
    expect(res.status).toBe(403);
    expect((await ok("/api/collections")).collections.map((c: { name: string }) => c.name)).not.toContain("Made by a client");
  });

  test("the items service refuses them to a scoped caller itself, whatever reaches it", async () => {
    await saved({ tags: ["kept-by-the-service"] });
    const shelf = await collection("Service shelf");
    const callers: Caller[] = [
      { ...alice, keyId: "scoped-by-tag", keyKind: "client", scope: { tagSlugs: ["in"] } },
      { ...alice, keyId: "scoped-by-collection", keyKind: "client", scope: { collectionId: shelf } },
    ];
    for (const caller of callers) {
      const ask = (name: "updateTag" | "deleteTag" | "createTag" | "createCollection", input: unknown) =>
        trove.bus.request(subjectOf(name), input, { headers: callerHeaders(caller) });
      await expect(ask("updateTag", { params: { slug: "kept-by-the-service" }, query: {}, body: { name: "Renamed" } })).rejects.toMatchObject({ code: "forbidden" });
      await expect(ask("deleteTag", { params: { slug: "kept-by-the-service" }, query: {} })).rejects.toMatchObject({ code: "forbidden" });
      await expect(ask("createTag", { params: {}, query: {}, body: { name: "service made" } })).rejects.toMatchObject({ code: "forbidden" });
      await expect(ask("createCollection", { params: {}, query: {}, body: { name: "service made" } })).rejects.toMatchObject({ code: "forbidden" });
    }
    const tags = (await ok("/api/tags")).tags as { slug: string; name: string }[];
    expect(tags.find((t) => t.slug === "kept-by-the-service")?.name).toBe("kept-by-the-service");
    expect(tags.map((t) => t.slug)).not.toContain("service-made");
  });
});

describe("saves by a scoped key", () => {
  test("a new save lands in the key's scope (its first tag, or its collection), so the key reads it", async () => {
    const shelf = await collection("Client shelf");
    const tagKey = await addClientKey(trove, { scope: { tagSlugs: ["Reading List", "later"] } });
    const shelfKey = await addClientKey(trove, { scope: { collectionId: shelf } });
    for (const [key, url] of [
      [tagKey, "https://scope.example.test/new/by-tag"],
      [shelfKey, "https://scope.example.test/new/by-collection"],
    ] as const) {
      const res = await ok("/api/ingest", { method: "POST", key, json: { url, html: page("Saved by a client", "A page a client saved for itself. ") } });
      expect(res.sync.added).toBe(1);
      const item = await ok(`/api/items/${res.id}`, asKey(key));
      expect(item.url).toBe(url);
      const listed = await ok("/api/items?limit=100", asKey(key));
      expect(listed.items.map((i: { id: string }) => i.id)).toContain(res.id);
    }
    const byTag = await ok(`/api/items?tags=reading-list&limit=100`);
    expect(byTag.items.map((i: { url: string; tagSlugs: string[] }) => [i.url, i.tagSlugs])).toEqual([["https://scope.example.test/new/by-tag", ["reading-list"]]]);
    const byShelf = await ok(`/api/items?collection=${shelf}&limit=100`);
    expect(byShelf.items.map((i: { url: string }) => i.url)).toEqual(["https://scope.example.test/new/by-collection"]);
  });

  test("a save of a URL saved outside the scope neither changes nor reveals that item, with or without a page", async () => {
    const outside = await saved({ tags: ["private-stuff"] });
    const before = await ok(`/api/items/${outside.id}`);
    const shelf = await collection("Another shelf");
    const keys = [await addClientKey(trove, { scope: { tagSlugs: ["in"] } }), await addClientKey(trove, { scope: { collectionId: shelf } })];
    for (const key of keys) {
      for (const json of [{ url: outside.url, html: page("Replaced by a client", "Content a client sent over the owner's page. ") }, { url: outside.url }]) {
        const res = await trove.api("/api/ingest", { method: "POST", key, json });
        const text = await res.text();
        expect(res.status).toBe(409);
        expect(JSON.parse(text).error).toBe("outside_scope");
        expect(text).not.toContain(outside.id);
        expect(text).not.toContain(before.title);
      }
    }
    const after = await ok(`/api/items/${outside.id}`);
    expect(after).toEqual(before);
    // Nothing else of it changed either: no tag or collection of the scopes was added, no save was counted.
    expect((await ok("/api/me")).linkCountLifetime).toBe((await ok("/api/items?status=stashed,flagged,archived&limit=1")).count);
  });

  test("the items service itself refuses the save of a URL outside the caller's scope", async () => {
    const outside = await saved();
    const caller: Caller = { ...alice, keyId: "scoped-saver", keyKind: "client", scope: { tagSlugs: ["in"] } };
    const save = trove.bus.request(subjectOf("ingest"), { params: {}, query: {}, body: { url: outside.url, html: page("Over the bus", "Sent past the gateway. ") } }, { headers: callerHeaders(caller) });
    await expect(save).rejects.toMatchObject({ code: "outside_scope" });
    expect((await ok(`/api/items/${outside.id}`)).timesAdded).toBe(1);
  });

  test("a URL the owner saves while a scoped key's save of it is fetching stays hers: that save is refused and changes nothing", async () => {
    const url = `${pages.url}/held`;
    const key = await addClientKey(trove, { scope: { tagSlugs: ["in"] } });
    // The scoped save looked the URL up (not saved yet) and is now fetching the page, which the test holds.
    const racing = trove.api("/api/ingest", { method: "POST", key, json: { url } });
    await pages.reached("/held");
    const owners = await ok("/api/ingest", { method: "POST", json: { url, html: page("The owner's copy", "The owner saved it first. ") } });
    pages.release();
    const res = await racing;
    const text = await res.text();
    expect({ status: res.status, error: JSON.parse(text).error }).toEqual({ status: 409, error: "outside_scope" });
    expect(text).not.toContain(owners.id);
    const item = await ok(`/api/items/${owners.id}`);
    expect({ timesAdded: item.timesAdded, title: item.title, tags: item.tags }).toEqual({ timesAdded: 1, title: "The owner's copy", tags: [] });
    expect(item.contentMarkdown).not.toContain(heldTitle);
  });

  test("a save of a URL already inside the scope counts as before and answers its id", async () => {
    const inside = await saved({ tags: ["in"] });
    const key = await addClientKey(trove, { scope: { tagSlugs: ["in"] } });
    const res = await ok("/api/ingest", { method: "POST", key, json: { url: inside.url } });
    expect(res.id).toBe(inside.id);
    expect((await ok(`/api/items/${inside.id}`, asKey(key))).timesAdded).toBe(2);
  });
});

describe("what a scoped key lists", () => {
  test("tags: only those on items in its scope, counted over those items", async () => {
    await saved({ tags: ["list-in", "list-both"] });
    await saved({ tags: ["list-in", "list-both"] });
    await saved({ tags: ["list-both", "list-secret"] });
    await ok("/api/tags", { method: "POST", json: { name: "list-unused" } });
    const key = await addClientKey(trove, { scope: { tagSlugs: ["list-in"] } });
    const mine = (await ok("/api/tags", asKey(key))).tags as { slug: string; itemCount: number }[];
    expect(mine.map((t) => [t.slug, t.itemCount])).toEqual([
      ["list-both", 2],
      ["list-in", 2],
    ]);
    const owner = (await ok("/api/tags")).tags as { slug: string; itemCount: number }[];
    expect(owner.filter((t) => t.slug.startsWith("list-")).map((t) => [t.slug, t.itemCount])).toEqual([
      ["list-both", 3],
      ["list-in", 2],
      ["list-secret", 1],
      ["list-unused", 0],
    ]);
  });

  test("collections: its own and those holding items in its scope, counted over those items", async () => {
    const own = await collection("Listed own shelf");
    const both = await collection("Listed both shelf");
    const secret = await collection("Listed secret shelf");
    const empty = await collection("Listed empty shelf");
    await saved({ collections: [own, both] });
    await saved({ collections: [both, secret] });
    const key = await addClientKey(trove, { scope: { collectionId: own } });
    const mine = (await ok("/api/collections", asKey(key))).collections as { id: string; itemCount: number }[];
    expect(mine.map((c) => [c.id, c.itemCount])).toEqual([
      [both, 1],
      [own, 1],
    ]);
    const tagKey = await addClientKey(trove, { scope: { tagSlugs: ["nothing-yet"] } });
    expect((await ok("/api/collections", asKey(tagKey))).collections).toEqual([]);
    const owner = (await ok("/api/collections")).collections as { id: string; itemCount: number }[];
    // The owner's list, by name: every collection with every item counted.
    expect(owner.filter((c) => [own, both, secret, empty].includes(c.id)).map((c) => [c.id, c.itemCount])).toEqual([
      [both, 2],
      [empty, 0],
      [own, 1],
      [secret, 1],
    ]);
  });

  test("an export's tag or collection filter tells a scoped key nothing of the account: outside and unknown both match nothing", async () => {
    await saved({ tags: ["export-secret"], collections: [await collection("Export secret shelf")] });
    const key = await addClientKey(trove, { scope: { tagSlugs: ["export-in"] } });
    const statuses: Record<string, number> = {};
    for (const [name, filter] of Object.entries({
      secretTag: { tags: ["export-secret"] },
      unknownTag: { tags: ["export-nowhere"] },
      secretShelf: { collection: "export-secret-shelf" },
      unknownShelf: { collection: "export-nowhere-shelf" },
    })) {
      statuses[name] = (await trove.api("/api/exports", { method: "POST", key, json: { format: "json", ...filter } })).status;
    }
    expect(statuses).toEqual({ secretTag: 200, unknownTag: 200, secretShelf: 200, unknownShelf: 200 });
    // The owner is still told of a tag she does not have.
    expect((await trove.api("/api/exports", { method: "POST", json: { format: "json", tags: ["export-nowhere"] } })).status).toBe(400);
  });

  test("GET /api/session tells no client key the owner's email; the owner's credentials get it", async () => {
    expect((await ok("/api/session")).account).toEqual({ email: "alice@example.test", plan: expect.any(String) });
    const shelf = await collection("Session shelf");
    for (const key of [
      await addClientKey(trove),
      await addClientKey(trove, { access: "read_only" }),
      await addClientKey(trove, { scope: { tagSlugs: ["in"] } }),
      await addClientKey(trove, { scope: { collectionId: shelf } }),
    ]) {
      const text = await (await trove.api("/api/session", { key })).text();
      expect(JSON.parse(text).account).toEqual({ email: null, plan: expect.any(String) });
      expect(text).not.toContain("alice@example.test");
    }
  });
});
