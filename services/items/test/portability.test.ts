// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS). The three subjects the
// exports service uses (items.internal.exportPage, importEntries, captureItem) have no HTTP route: they are asked
// here over the bus the way the exports service asks them, as a caller the gateway resolves for an account, and
// what they did is read back through the public HTTP API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  accountCallerSubject,
  captureItemSubject,
  exportPageSubject,
  importEntriesSubject,
  type Caller,
  type CaptureItemReply,
  type ExportPageReply,
  type ExportPageRequest,
  type ExportRecord,
  type ImportEntriesReply,
  type ImportEntry,
} from "@trove/contracts";
import { callerHeaders } from "@trove/host";
import { aliceKey, articleHtml, bobKey, eventually, seedAccounts, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";

const carolKey = "test-key-carol-0123456789";
const daveKey = "test-key-dave-01234567890";
const accounts = JSON.stringify([
  ...JSON.parse(seedAccounts),
  { email: "carol@example.test", apiKey: carolKey, plan: "free", linkLimit: 5, limitScope: "lifetime" },
  { email: "dave@example.test", apiKey: daveKey, plan: "monthly", linkLimit: 10, limitScope: "billing_cycle" },
]);

let trove: TestTrove;
let pages: PageServer;
let alice: Caller;
let bob: Caller;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove({ TROVE_SEED_ACCOUNTS: accounts, TROVE_RATE_LIMIT: "1000000" });
  alice = await callerOf("alice@example.test");
  bob = await callerOf("bob@example.test");
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

async function callerOf(email: string): Promise<Caller> {
  const { id } = await trove.db.selectFrom("gateway.accounts").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  return (await trove.bus.request(accountCallerSubject, { accountId: id })) as Caller;
}
const importEntries = (c: Caller, entries: unknown[]) =>
  trove.bus.request(importEntriesSubject, { entries }, { headers: callerHeaders(c), timeoutMs: 60_000 }) as Promise<ImportEntriesReply>;
const exportPage = (c: Caller, req: Partial<ExportPageRequest>) =>
  trove.bus.request(exportPageSubject, { includeContent: false, includeNotes: false, limit: 100, ...req }, { headers: callerHeaders(c) }) as Promise<ExportPageReply>;
const captureItem = (c: Caller, itemId: string) =>
  trove.bus.request(captureItemSubject, { itemId }, { headers: callerHeaders(c), timeoutMs: 60_000 }) as Promise<CaptureItemReply>;

const ok = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
const item = (id: string, key = aliceKey) => ok(`/api/items/${id}`, { key });
const count = async (query: string, key = aliceKey) => (await ok(`/api/items?limit=1&${query}`, { key })).count as number;

/** Every change event of the account so far (the relay positions them shortly after each commit). */
async function changes(key = aliceKey): Promise<{ type: string; itemId: string; afterScope: unknown; payload: Record<string, unknown> }[]> {
  const out = [];
  let cursor = "";
  for (;;) {
    const page = await ok(`/api/items/changes?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    out.push(...page.events);
    cursor = page.nextCursor;
    if (!page.hasMore) return out;
  }
}

/** All the caller's records for a request, page after page; also checks the pages chain. */
async function exportAll(c: Caller, req: Partial<ExportPageRequest>): Promise<ExportRecord[]> {
  const out: ExportRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await exportPage(c, { ...req, after });
    out.push(...page.records);
    if (page.next === null) return out;
    expect(page.next).toBe(page.records.at(-1)!.id);
    after = page.next;
  }
}

let n = 0;
const url = (label: string) => `https://import.example.test/${label}/${++n}`;
const created = (r: ImportEntriesReply["results"][number]) => {
  if (r.outcome !== "created") throw new Error(`expected created, got ${JSON.stringify(r)}`);
  return r;
};

const article = `# Parsing Things Well

Parsers turn text into structure. The quick brown parser jumps over the lazy lexer.

## Second part

More words about parsers, and the lazy lexer again.
`;

describe("importEntries", () => {
  test("a new URL becomes an item with its original time, status, tags, collections, note, processedAt and highlights", async () => {
    const [withContent, bare] = [url("new"), url("new")];
    const lexerAt = article.lastIndexOf("the lazy lexer");
    const entries: ImportEntry[] = [
      {
        url: withContent,
        title: "My Title",
        createdAt: 1_500_000_000,
        tags: ["Deep Work", "later"],
        collections: ["Shelf One"],
        status: "archived",
        processedAt: 1_500_000_100,
        note: "an imported note",
        contentMarkdown: article,
        source: "import:pocket",
        highlights: [
          // Offsets that do not hold the text: it is located.
          { text: "Parsers turn text", note: "first", startOffset: 0, endOffset: 1, createdAt: 1_500_000_050 },
          // Offsets that hold the text are kept, here at its second occurrence (locating would find the first).
          { text: "the lazy lexer", note: "", startOffset: lexerAt, endOffset: lexerAt + 14 },
        ],
      },
      { url: bare, createdAt: 4_000_000_000 /* in the future: now */ },
    ];
    const before = Math.floor(Date.now() / 1000);
    const { results } = await importEntries(alice, entries);
    expect(results).toMatchObject([
      { outcome: "created", needsFetch: false },
      { outcome: "created", needsFetch: true },
    ]);
    const a = await item(created(results[0]!).id);
    expect(a).toMatchObject({
      url: withContent,
      title: "My Title",
      createdAt: 1_500_000_000,
      status: "archived",
      tags: ["Deep Work", "later"],
      tagSlugs: ["deep-work", "later"],
      collectionName: "Shelf One",
      notes: "an imported note",
      processedAt: 1_500_000_100,
      source: "import:pocket",
      contentSource: "import",
      contentAvailable: true,
      timesAdded: 1,
    });
    expect(a.updatedAt).toBeGreaterThanOrEqual(before);
    const md = a.contentMarkdown as string;
    expect(md).toBe(article.trim());
    const hs = a.highlights as { text: string; note: string; startOffset: number | null; endOffset: number | null; createdAt: number }[];
    expect(hs.map((h) => [h.text, h.note, h.startOffset])).toEqual([
      ["Parsers turn text", "first", md.indexOf("Parsers turn text")],
      ["the lazy lexer", "", lexerAt],
    ]);
    expect(lexerAt).toBeGreaterThan(md.indexOf("the lazy lexer"));
    expect(hs[0]!.createdAt).toBe(1_500_000_050);
    expect(hs[1]!.createdAt).toBeGreaterThanOrEqual(before);

    const b = await item(created(results[1]!).id);
    expect(b).toMatchObject({ title: "import.example.test", status: "stashed", tags: [], notes: "", processedAt: null, contentAvailable: false });
    expect(b.createdAt).toBeGreaterThanOrEqual(before);
    expect(b.createdAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));

    // Tags and collections were created by name; the archived item's tags are hidden from /api/tags as usual.
    const collections = (await ok("/api/collections")).collections as { name: string; slug: string; itemCount: number }[];
    expect(collections.find((c) => c.slug === "shelf-one")).toMatchObject({ name: "Shelf One", itemCount: 1 });
    expect(await count("tags=deep-work&status=archived")).toBe(1);
    expect(await count("collection=shelf-one&status=archived")).toBe(1);

    // One item.created each, with the item's scope as imported.
    await eventually(async () => (await changes()).filter((e) => e.itemId === a.id || e.itemId === b.id).length === 2);
    const events = (await changes()).filter((e) => e.itemId === a.id || e.itemId === b.id);
    expect(events.map((e) => e.type)).toEqual(["item.created", "item.created"]);
    expect(events[0]!.afterScope).toEqual({ status: "archived", tagSlugs: ["deep-work", "later"], collectionIds: a.collectionIds });
  });

  test("markdown without a title takes its heading; HTML content is extracted; content that cannot be extracted leaves the item to fetch", async () => {
    const { results } = await importEntries(alice, [
      { url: url("content"), contentMarkdown: article },
      { url: url("content"), contentHtml: articleHtml },
      { url: url("content"), contentMarkdown: "   \n  " },
      { url: url("content"), contentHtml: "<html><body></body></html>" },
    ]);
    expect(results.map((r) => r.outcome === "created" && r.needsFetch)).toEqual([false, false, true, true]);
    expect((await item(created(results[0]!).id)).title).toBe("Parsing Things Well");
    const html = await item(created(results[1]!).id);
    expect(html).toMatchObject({ title: "Parsing Things Well", contentSource: "import", contentAvailable: true });
    expect(html.contentMarkdown).toContain("quick brown parser");
    expect(await item(created(results[3]!).id)).toMatchObject({ contentAvailable: false, contentExtractError: null });
  });

  test("a URL already saved is merged: the tags, collections and highlights it lacks and a note when it has none; nothing replaced", async () => {
    const saved = url("merge");
    const id = (await ok("/api/ingest", { method: "POST", json: { url: saved, html: articleHtml } })).id as string;
    await ok(`/api/items/${id}`, { method: "POST", json: { tags: ["kept"], notes: "mine" } });
    await ok(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers turn text into structure" } });
    const before = await item(id);
    const entry: ImportEntry = {
      // The same page once normalised: the fragment and tracking parameters go.
      url: `${saved}?utm_source=pocket#top`,
      title: "Another title",
      createdAt: 1_400_000_000,
      status: "archived",
      tags: ["kept", "Added Tag"],
      collections: ["Merged Shelf"],
      note: "theirs",
      highlights: [{ text: "Parsers turn text into structure", note: "dup", startOffset: null, endOffset: null }, { text: "the quick brown parser", note: "new", startOffset: null, endOffset: null }],
    };
    expect((await importEntries(alice, [entry])).results).toEqual([{ outcome: "present", id }]);
    const after = await item(id);
    // Tags in the order added (the same second: by slug).
    expect([...after.tags].sort()).toEqual(["Added Tag", "kept"]);
    expect(after).toMatchObject({
      title: before.title,
      createdAt: before.createdAt,
      status: "stashed",
      notes: "mine",
      collectionName: "Merged Shelf",
      contentKey: before.contentKey,
      timesAdded: before.timesAdded,
    });
    expect((after.highlights as { text: string; note: string }[]).map((h) => [h.text, h.note])).toEqual([
      ["Parsers turn text into structure", ""],
      ["the quick brown parser", "new"],
    ]);
    await eventually(async () => (await changes()).some((e) => e.itemId === id && e.type === "item.collection_added"));
    const events = (await changes()).filter((e) => e.itemId === id);
    expect(events.slice(-3).map((e) => [e.type, e.payload])).toEqual([
      ["item.updated", { changedFields: ["highlights"] }],
      ["item.tagged", { changedFields: ["tags"], tagSlugsAdded: ["added-tag"] }],
      ["item.collection_added", { changedFields: ["collections"], collectionIdsAdded: after.collectionIds }],
    ]);

    // The same entry again changes nothing and says nothing.
    const eventCount = events.length;
    expect((await importEntries(alice, [entry])).results).toEqual([{ outcome: "present", id }]);
    expect((await item(id)).updatedAt).toBe(after.updatedAt);
    await Bun.sleep(200);
    expect((await changes()).filter((e) => e.itemId === id).length).toBe(eventCount);

    // A note is set only on an item without one; within one batch the second entry of a URL merges into the first.
    const fresh = url("merge");
    const { results } = await importEntries(alice, [{ url: fresh }, { url: fresh, note: "filled", tags: ["second"] }]);
    const freshId = created(results[0]!).id;
    expect(results[1]).toEqual({ outcome: "present", id: freshId });
    expect(await item(freshId)).toMatchObject({ notes: "filled", tags: ["second"] });
  });

  test("the plan: the entry past the limit and every later one answer quota, nothing after it saved; counted now", async () => {
    const carol = await callerOf("carol@example.test");
    const first = await importEntries(carol, [{ url: url("quota") }, { url: url("quota") }]);
    const known = created(first.results[0]!).id;
    const { results } = await importEntries(carol, [
      { url: url("quota"), createdAt: 1_000_000_000 },
      { url: "ftp://import.example.test/bad" },
      { url: url("quota") },
      { url: url("quota") },
      { url: url("quota") },
      // Already saved, but after the limit: not merged either.
      { url: (await item(known, carolKey)).url, tags: ["late"] },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["created", "failed", "created", "created", "quota", "quota"]);
    const me = await ok("/api/me", { key: carolKey });
    expect(me).toMatchObject({ linkLimit: 5, linkCount: 5, linkCountLifetime: 5 });
    expect(await count("status=stashed,flagged,archived", carolKey)).toBe(5);
    expect((await ok("/api/stats", { key: carolKey })).total).toBe(5);
    expect((await item(known, carolKey)).tags).toEqual([]);
    // In a later batch, an entry of a saved URL is merged (it adds no item); a new one is refused.
    const again = await importEntries(carol, [{ url: (await item(known, carolKey)).url, tags: ["late"] }, { url: url("quota") }]);
    expect(again.results.map((r) => r.outcome)).toEqual(["present", "quota"]);
    expect((await item(known, carolKey)).tags).toEqual(["late"]);
  });

  test("billing cycle: an item imported with an old time counts in this month, and deleting it gives nothing back", async () => {
    const dave = await callerOf("dave@example.test");
    const { results } = await importEntries(dave, [{ url: url("cycle"), createdAt: 1_262_304_000 /* 2010-01-01 */ }]);
    const id = created(results[0]!).id;
    const month = new Date().toISOString().slice(0, 7);
    expect(await ok("/api/me", { key: daveKey })).toMatchObject({ linkCount: 1, linkCountMonth: 1, linkCountLifetime: 1 });
    const periods = await trove.db.selectFrom("items.usage").select(["period", "count"]).where("account_id", "=", dave.accountId).orderBy("period").execute();
    expect(periods.map((p) => [p.period, Number(p.count)])).toEqual([[month, 1], ["lifetime", 1]].sort());
    // The statistics place it where it was created.
    expect((await ok("/api/stats?since=2009-12-31&until=2010-01-02", { key: daveKey })).range.count).toBe(1);
    await ok("/api/items/delete", { method: "POST", key: daveKey, json: { ids: [id] } });
    expect(await ok("/api/me", { key: daveKey })).toMatchObject({ linkCount: 1, linkCountMonth: 1 });
  });

  test("strings are cleaned (NUL, lone surrogates) and cut to the API's limits; unusable entries fail alone", async () => {
    const clean = url("clean");
    const { results } = await importEntries(alice, [
      {
        url: clean,
        title: `a\u0000b\uD800c${"t".repeat(2_000)}`,
        tags: ["x\u0000y", "\uDC00lone", ...Array.from({ length: 150 }, (_, i) => `tag${i}`)],
        collections: ["c\u0000ol"],
        note: "no\u0000te\uD83D",
        source: "s\u0000rc",
        contentMarkdown: "# Head\u0000ing\n\nBody text with a \uD800 lone surrogate and the word needle.\n",
        highlights: [{ text: "nee\u0000dle", note: "\uDFFF" }, { text: "\u0000" }, { text: "x".repeat(30_000), note: "" }],
      },
      { url: "not a url" },
      { url: "javascript:alert(1)" },
      { title: "no url" },
      "just a string",
      null,
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["created", "failed", "failed", "failed", "failed", "failed"]);
    expect(results[1]).toMatchObject({ reason: expect.stringContaining("not a valid absolute URL") });
    const got = await item(created(results[0]!).id);
    expect(got.title).toBe(`ab\uFFFDc${"t".repeat(996)}`);
    expect(got.tags).toContain("xy");
    expect(got.tags).toContain("\uFFFDlone");
    expect(got.tags).toContain("tag97");
    expect(got.tags).not.toContain("tag98");
    expect(got.notes).toBe("note\uFFFD");
    expect(got.source).toBe("src");
    expect(got.contentMarkdown).toContain("needle");
    const hs = got.highlights as { text: string; note: string; startOffset: number | null }[];
    expect(hs.map((h) => h.text.length)).toEqual([6, 20_000]);
    expect(hs[0]).toMatchObject({ text: "needle", note: "\uFFFD" });
    expect(hs[0]!.startOffset).not.toBeNull();
    expect((await ok("/api/collections")).collections.some((c: { name: string }) => c.name === "col")).toBe(true);
  });

  test("refused: a batch over 200 entries, a read-only or scoped caller", async () => {
    await expect(importEntries(alice, Array.from({ length: 201 }, () => ({ url: url("big") })))).rejects.toMatchObject({ code: "validation_failed" });
    await expect(trove.bus.request(importEntriesSubject, { entries: "x" }, { headers: callerHeaders(alice) })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(importEntries({ ...alice, access: "read_only" }, [{ url: url("ro") }])).rejects.toMatchObject({ code: "forbidden" });
    await expect(importEntries({ ...alice, keyKind: "client", scope: { tagSlugs: ["x"] } }, [{ url: url("ro") }])).rejects.toMatchObject({ code: "forbidden" });
    await expect(trove.bus.request(importEntriesSubject, { entries: [] })).rejects.toMatchObject({ code: "unauthorized" });
  });

  test("two batches of the same URLs in parallel make each item once, with both batches' tags", async () => {
    const urls = Array.from({ length: 30 }, () => url("parallel"));
    const before = (await ok("/api/me")).linkCountLifetime as number;
    const [a, b] = await Promise.all([
      importEntries(alice, urls.map((u) => ({ url: u, tags: ["batch-a"], contentMarkdown: article }))),
      importEntries(alice, urls.map((u) => ({ url: u, tags: ["batch-b"] }))),
    ]);
    for (let i = 0; i < urls.length; i++) {
      const [ra, rb] = [a.results[i]!, b.results[i]!];
      expect([ra.outcome, rb.outcome].sort()).toEqual(["created", "present"]);
      expect((ra as { id: string }).id).toBe((rb as { id: string }).id);
    }
    expect((await ok("/api/me")).linkCountLifetime).toBe(before + 30);
    expect(await count("tags=batch-a")).toBe(30);
    expect(await count("tags=batch-a,batch-b")).toBe(30);
    expect(await count("tags=batch-a&since=0")).toBe(30);
  });

  test("the list counts stay exact after imports of every status into tags and collections", async () => {
    const lists = ["", "status=archived", "status=stashed,flagged,archived", "tags=count-red", "tags=count-red&status=archived", "collection=count-shelf", "collection=count-shelf&status=flagged"];
    const statuses = ["stashed", "flagged", "archived"] as const;
    await importEntries(
      alice,
      Array.from({ length: 12 }, (_, i) => ({ url: url("counts"), status: statuses[i % 3], tags: i % 2 ? ["count-red"] : [], collections: i % 4 === 0 ? ["count-shelf"] : [] })),
    );
    expect(await count("tags=count-red&status=stashed,flagged,archived")).toBe(6);
    for (const list of lists) expect({ list, n: await count(list) }).toEqual({ list, n: await count(`${list}&since=0`) });
    const stats = await ok("/api/stats");
    for (const status of statuses) expect(stats.byStatus[status]).toBe(await count(`status=${status}&since=0`));
  });
});

describe("exportPage", () => {
  let ids: string[] = [];
  beforeAll(async () => {
    const { results } = await importEntries(
      bob,
      Array.from({ length: 3 }, (_, i) => ({ url: url("export-bob"), tags: ["red"], status: i === 2 ? "archived" : "stashed" }) as ImportEntry),
    );
    ids = results.map((r) => created(r).id);
  });

  test("pages of the caller's items in id order: every item exactly once, other accounts' never", async () => {
    const all = await exportAll(alice, { limit: 7 });
    const fromApi = (await ok("/api/items?limit=1000&status=stashed,flagged,archived")).items.map((i: { id: string }) => i.id);
    expect(all.map((r) => r.id)).toEqual([...fromApi].sort());
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(all.some((r) => ids.includes(r.id))).toBe(false);
    const bobs = await exportAll(bob, { limit: 2 });
    expect(bobs.map((r) => r.id)).toEqual([...ids].sort());
    // An empty page (past the end) says so.
    expect(await exportPage(bob, { after: bobs.at(-1)!.id })).toEqual({ records: [], next: null });
  });

  test("records: names, times, notes only when asked, content only when asked and present, highlights always", async () => {
    const { results } = await importEntries(alice, [
      {
        url: url("record"),
        title: "Exported",
        createdAt: 1_600_000_000,
        tags: ["Zeta Tag", "Alpha Tag"],
        collections: ["Record Shelf"],
        status: "flagged",
        processedAt: 1_600_000_500,
        note: "a note",
        source: "import:karakeep",
        contentMarkdown: article,
        highlights: [{ text: "the lazy lexer again", note: "hl", prefix: "and ", suffix: ".", startOffset: null, endOffset: null, createdAt: 1_600_000_100 }],
      },
      { url: url("record"), tags: ["record-bare"] },
    ]);
    const [full, bare] = results.map((r) => created(r).id);
    const plain = (await exportAll(alice, { tags: ["Zeta Tag"] }))[0]!;
    expect(plain).toEqual({
      id: full!,
      url: expect.any(String),
      title: "Exported",
      status: "flagged",
      // Added in one step: the item's order is the tags' slug order.
      tags: ["Alpha Tag", "Zeta Tag"],
      collections: ["Record Shelf"],
      createdAt: 1_600_000_000,
      updatedAt: expect.any(Number),
      processedAt: 1_600_000_500,
      contentExtractedAt: expect.any(Number),
      source: "import:karakeep",
      highlights: [{ text: "the lazy lexer again", note: "hl", prefix: "and ", suffix: ".", startOffset: expect.any(Number), endOffset: expect.any(Number), createdAt: 1_600_000_100 }],
    });
    const rich = (await exportAll(alice, { tags: ["zeta-tag"], includeContent: true, includeNotes: true }))[0]!;
    expect(rich.note).toBe("a note");
    expect(rich.contentMarkdown).toBe((await item(full!)).contentMarkdown);
    const h = rich.highlights[0]!;
    expect(rich.contentMarkdown!.slice(h.startOffset!, h.endOffset!)).toBe("the lazy lexer again");
    const none = (await exportAll(alice, { tags: ["record-bare"], includeContent: true, includeNotes: true }))[0]!;
    expect(none.id).toBe(bare!);
    expect(none.note).toBe("");
    expect("contentMarkdown" in none).toBe(false);
    expect(none.contentExtractedAt).toBeNull();
  });

  test("filters: tags (all of them, names or slugs), a collection by id, name or slug, statuses (none: all, archived too)", async () => {
    const { results } = await importEntries(alice, [
      { url: url("filter"), tags: ["Filter Red", "filter-blue"], collections: ["Filter Shelf"], status: "archived" },
      { url: url("filter"), tags: ["Filter Red"], status: "stashed" },
      { url: url("filter"), tags: ["filter-blue"], collections: ["Filter Shelf"], status: "flagged" },
    ]);
    const [both, red, blue] = results.map((r) => created(r).id);
    const ids = async (req: Partial<ExportPageRequest>) => (await exportAll(alice, { limit: 1, ...req })).map((r) => r.id);
    expect(await ids({ tags: ["Filter Red"] })).toEqual([both!, red!].sort());
    expect(await ids({ tags: ["filter-red", "Filter-Blue"] })).toEqual([both!]);
    expect(await ids({ collection: "Filter Shelf" })).toEqual([both!, blue!].sort());
    expect(await ids({ collection: "filter-shelf", status: ["flagged"] })).toEqual([blue!]);
    const shelfId = (await item(both!)).collectionIds[0];
    expect(await ids({ collection: shelfId })).toEqual([both!, blue!].sort());
    expect(await ids({ tags: ["filter-red"], status: ["stashed", "flagged"] })).toEqual([red!]);
  });

  test("an unknown tag or collection is refused (as the exports service's check at job creation)", async () => {
    await expect(exportPage(alice, { tags: ["filter-red", "no-such-tag"], limit: 1 })).rejects.toMatchObject({
      code: "validation_failed",
      details: { fields: { tags: expect.stringContaining("no-such-tag") } },
    });
    await expect(exportPage(alice, { collection: "No Such Shelf", limit: 1 })).rejects.toMatchObject({
      code: "validation_failed",
      details: { fields: { collection: expect.any(String) } },
    });
    // Bob has no tag of alice's.
    await expect(exportPage(bob, { tags: ["filter-red"], limit: 1 })).rejects.toMatchObject({ code: "validation_failed" });
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { status: ["deleted"] }, { includeContent: "yes" }, { tags: "red" }, { after: 5 }]) {
      await expect(exportPage(alice, bad as Partial<ExportPageRequest>)).rejects.toMatchObject({ code: "validation_failed" });
    }
  });

  test("a scoped key's export holds only its scope", async () => {
    const { results } = await importEntries(alice, [
      { url: url("scope"), tags: ["scope-in"] },
      { url: url("scope"), tags: ["scope-in", "scope-other"], status: "archived" },
      { url: url("scope"), tags: ["scope-out"] },
    ]);
    const [inA, inB] = results.map((r) => created(r).id);
    const scoped: Caller = { ...alice, keyKind: "client", scope: { tagSlugs: ["scope-in"] } };
    expect((await exportAll(scoped, { limit: 50 })).map((r) => r.id)).toEqual([inA!, inB!].sort());
    expect((await exportAll(scoped, { tags: ["scope-other"] })).map((r) => r.id)).toEqual([inB!]);
    expect(await exportAll(scoped, { tags: ["scope-out"] })).toEqual([]);
  });

  test("a page with content ends once its Markdown passes 4 MiB, after at least one record", async () => {
    const para = `${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(20)}\n\n`;
    const big = `# Big\n\n${para.repeat(600)}`; // about 680 KB: cut to the 512 KiB cap
    await importEntries(alice, Array.from({ length: 10 }, () => ({ url: url("big"), tags: ["big-content"], contentMarkdown: big })));
    const first = await exportPage(alice, { tags: ["big-content"], includeContent: true, limit: 100 });
    const bytes = first.records.reduce((sum, r) => sum + Buffer.byteLength(r.contentMarkdown ?? ""), 0);
    expect(first.records.length).toBeGreaterThanOrEqual(1);
    expect(first.records.length).toBeLessThan(10);
    expect(bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(first.next).toBe(first.records.at(-1)!.id);
    expect((await exportAll(alice, { tags: ["big-content"], includeContent: true, limit: 100 })).length).toBe(10);
    // Without content the budget does not apply.
    expect((await exportPage(alice, { tags: ["big-content"], limit: 100 })).records.length).toBe(10);
  });
});

describe("captureItem", () => {
  test("fetches, extracts and stores an imported item's page; a placeholder title gives way, an imported one stays", async () => {
    const { results } = await importEntries(alice, [{ url: `${pages.url}/article` }, { url: `${pages.url}/article-copy`, title: "Kept Title" }]);
    const [a, b] = results.map((r) => created(r));
    expect([a!.needsFetch, b!.needsFetch]).toEqual([true, true]);
    expect(await captureItem(alice, a!.id)).toEqual({ outcome: "stored" });
    expect(await captureItem(alice, b!.id)).toEqual({ outcome: "stored" });
    expect(await item(a!.id)).toMatchObject({ title: "Parsing Things Well", contentAvailable: true, contentSource: "fetch", contentExtractError: null });
    expect(await item(b!.id)).toMatchObject({ title: "Kept Title", contentAvailable: true });
    await eventually(async () => (await changes()).some((e) => e.itemId === a!.id && e.type === "item.updated"));
  });

  test("a refused or failed fetch records the error and keeps the item; deleted answers gone; others' or unknown: not_found", async () => {
    const { results } = await importEntries(alice, [{ url: "http://169.254.169.254/latest/meta-data/" }, { url: `${pages.url}/missing` }, { url: url("gone") }]);
    const [metadata, missing, gone] = results.map((r) => created(r).id);
    const refused = await captureItem(alice, metadata!);
    expect(refused).toMatchObject({ outcome: "failed", reason: expect.stringMatching(/^url_not_allowed: /) });
    expect(await item(metadata!)).toMatchObject({ contentAvailable: false, contentExtractError: refused.reason });
    expect(await captureItem(alice, missing!)).toEqual({ outcome: "failed", reason: "HTTP 404" });
    expect(await item(missing!)).toMatchObject({ contentExtractError: "HTTP 404" });

    await ok("/api/items/delete", { method: "POST", json: { ids: [gone] } });
    expect(await captureItem(alice, gone!)).toEqual({ outcome: "gone" });
    await expect(captureItem(alice, "0190aaaa-0000-7000-8000-000000000000")).rejects.toMatchObject({ code: "not_found" });
    const bobItem = await trove.db.selectFrom("items.items").select("id").where("account_id", "=", bob.accountId).executeTakeFirstOrThrow();
    await expect(captureItem(alice, bobItem.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await captureItem(bob, bobItem.id)).toMatchObject({ outcome: "failed" });
    await expect(captureItem({ ...alice, access: "read_only" }, missing!)).rejects.toMatchObject({ code: "forbidden" });
  });
});
