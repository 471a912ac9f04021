// GET /api/items/search over a small realistic library: query syntax, typo tolerance, unicode, ranking, filters,
// scopes, hostile q, and the reindex. The index follows item events, so each check waits for it to catch up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";
import { itemsSearchIndex } from "../index.ts";

let trove: TestTrove;
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><article><h1>${title}</h1>${body
    .split("\n")
    .map((p) => `<p>${p}</p>`)
    .join("")}</article></main></body></html>`;

const corpus = {
  kube: { url: "https://search.example.test/kubernetes-production", title: "Running Kubernetes in Production", body: "Lessons from operating clusters at scale.\nRolling upgrades, node pools and the pager." },
  sourdough: { url: "https://search.example.test/sourdough", title: "A Beginner's Guide to Sourdough Bread", body: "Feed the starter twice a day.\nThe crumb should be open and airy, the crust dark." },
  soda: { url: "https://search.example.test/soda-bread", title: "Quick Soda Bread", body: "No yeast and no waiting: bicarbonate and buttermilk.\nA loaf in under an hour." },
  cafe: { url: "https://search.example.test/lisbon", title: "Café culture in Lisbon", body: "The pastéis de nata are best with a bica.\nSit outside and watch the trams." },
  tokyo: { url: "https://search.example.test/tokyo-metro", title: "東京の地下鉄ガイド", body: "東京都内の地下鉄路線を紹介します。\n乗り換えのコツも。" },
  postgres: { url: "https://search.example.test/pg-indexing", title: "Postgres Indexing Tips", body: "A GIN index speeds up full text search.\nTrigram similarity helps with misspelled words." },
  weekly: { url: "https://search.example.test/weekly-42", title: "Weekly reading list", body: "Links about gardening, chess openings and a long thread on kubernetes operators.\nAlso a recipe." },
  rust: { url: "https://search.example.test/rust-ownership", title: "Rust ownership explained", body: "Borrowing and lifetimes without tears.\nThe compiler is your friend." },
};
type Key = keyof typeof corpus;
const ids = {} as Record<Key, string>;

const search = async (query: string, key?: string) => {
  const res = await trove.api(`/api/items/search?${query}`, key ? { key } : undefined);
  return { status: res.status, body: await res.json() };
};
const found = async (q: string, extra = "", key?: string): Promise<Key[]> => {
  const { status, body } = await search(`q=${encodeURIComponent(q)}${extra}`, key);
  expect(status).toBe(200);
  const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k as Key]));
  return body.items.map((i: { id: string }) => byId[i.id] ?? i.id);
};
const update = (id: string, json: Record<string, unknown>) => trove.api(`/api/items/${id}`, { method: "POST", json });

beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
  for (const [k, v] of Object.entries(corpus)) {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: v.url, html: page(v.title, v.body) } });
    ids[k as Key] = (await res.json()).id;
  }
  await update(ids.sourdough, { tags: ["baking"] });
  await update(ids.postgres, { notes: "read again before the database migration" });
  await update(ids.rust, { collectionId: "Languages" });
  // Every document indexed, content included.
  await eventually(async () => (await found("buttermilk OR trams OR lifetimes OR migration OR baking OR 地下鉄")).length === 6, 20_000);
}, 60_000);
afterAll(() => trove.stop());

describe("items search", () => {
  test("phrases, exclusion, OR and a prefix on the last word", async () => {
    expect(await found('"open and airy"')).toEqual(["sourdough"]);
    expect(await found('"airy and open"')).toEqual([]);
    expect((await found("bread")).sort()).toEqual(["soda", "sourdough"]);
    expect(await found("bread -sourdough")).toEqual(["soda"]);
    expect((await found("lisbon OR ownership")).sort()).toEqual(["cafe", "rust"]);
    expect(await found("sourd")).toEqual(["sourdough"]);
    expect(await found("soda brea")).toEqual(["soda"]);
    // English stemming: "operate" finds "operating".
    expect(await found("operate clusters")).toEqual(["kube"]);
    // Every word counts, stop words too: "before" (an English stop word) does not drop out and widen the query.
    expect(await found("before database")).toEqual(["postgres"]);
    expect(await found("database before")).toEqual(["postgres"]);
    expect(await found("before crust")).toEqual([]);
  });

  test("a typo in a title word is tolerated when nothing matches exactly", async () => {
    const { body } = await search("q=kubernetse");
    expect(body.items.map((i: any) => i.id)).toContain(ids.kube);
    expect(body.items.find((i: any) => i.id === ids.kube).search.matchedField).toBe("title");
  });

  test("tags, the user's notes and content are matched, and say so", async () => {
    const tag = (await search("q=baking")).body.items;
    expect(tag.map((i: any) => i.id)).toEqual([ids.sourdough]);
    expect(tag[0].search.matchedField).toBe("tags");
    const notes = (await search("q=migration")).body.items;
    expect(notes.map((i: any) => i.id)).toEqual([ids.postgres]);
    expect(notes[0].search).toMatchObject({ matchedField: "notes", snippet: "read again before the database migration" });
    const content = (await search("q=trigram")).body;
    expect(content.items.map((i: any) => i.id)).toEqual([ids.postgres]);
    expect(content.items[0].search.matchedField).toBe("content");
    expect(content.items[0].search.snippet).toContain("Trigram similarity");
    expect(content).toMatchObject({ count: 1, limit: 200, offset: 0, mode: "lexical" });
    expect(content.items[0]).toMatchObject({ id: ids.postgres, title: "Postgres Indexing Tips", status: "stashed" });
    expect(content.items[0].contentMarkdown).toBeUndefined();
  });

  test("a title match ranks above a content-only match", async () => {
    const { body } = await search("q=kubernetes");
    expect(body.items.map((i: any) => i.id)).toEqual([ids.kube, ids.weekly]);
    expect(body.items[0].search.score).toBeGreaterThan(body.items[1].search.score);
    expect(body.items[1].search.matchedField).toBe("content");
  });

  test("accents both ways and CJK words", async () => {
    expect(await found("cafe")).toEqual(["cafe"]);
    expect(await found("Café LISBON")).toEqual(["cafe"]);
    expect(await found("pasteis")).toEqual(["cafe"]);
    expect(await found("pastéis de nata")).toEqual(["cafe"]);
    expect(await found("地下鉄")).toEqual(["tokyo"]);
    expect(await found("路線")).toEqual(["tokyo"]);
    expect(await found("東")).toEqual(["tokyo"]);
  });

  test("filters: status (archived only when asked), tags, collection, since and until", async () => {
    expect(await found("lifetimes")).toEqual(["rust"]);
    expect(await found("lifetimes", "&collection=languages")).toEqual(["rust"]);
    expect(await found("bread", "&collection=languages")).toEqual([]);
    expect(await found("bread", "&tags=baking")).toEqual(["sourdough"]);
    expect(await found("bread", "&since=2100-01-01")).toEqual([]);
    expect(await found("bread", "&until=2000-01-01")).toEqual([]);
    expect((await found("bread", "&since=2000-01-01&until=2100-01-01")).length).toBe(2);
    await update(ids.rust, { archived: true });
    expect(await found("lifetimes")).toEqual([]);
    expect(await found("lifetimes", "&status=archived")).toEqual(["rust"]);
    expect(await found("lifetimes", "&status=stashed,archived")).toEqual(["rust"]);
    await update(ids.rust, { archived: false });
    expect(await found("lifetimes")).toEqual(["rust"]);
  });

  test("several tags in a filter: items carrying all of them, in the list and in search", async () => {
    await update(ids.kube, { tags: ["ops", "infra"] });
    await update(ids.weekly, { tags: ["ops"] });
    const listed = async (tags: string) => {
      const body = await (await trove.api(`/api/items?tags=${tags}`)).json();
      return { ids: body.items.map((i: { id: string }) => i.id).sort(), count: body.count };
    };
    expect(await listed("ops,infra")).toEqual({ ids: [ids.kube], count: 1 });
    expect(await listed("ops")).toEqual({ ids: [ids.kube, ids.weekly].sort(), count: 2 });
    expect(await listed("infra,baking")).toEqual({ ids: [], count: 0 });
    expect(await found("kubernetes", "&tags=ops,infra")).toEqual(["kube"]);
    expect(await found("kubernetes", "&tags=ops,baking")).toEqual([]);
  });

  test("limit and offset page through the matches; count covers them all", async () => {
    const first = (await search("q=bread&limit=1")).body;
    const second = (await search("q=bread&limit=1&offset=1")).body;
    expect(first.count).toBe(2);
    expect(first.nextOffset).toBe(1);
    expect(second.nextOffset).toBeNull();
    expect([first.items[0].id, second.items[0].id].sort()).toEqual([ids.soda, ids.sourdough].sort());
    const withContent = (await search("q=sourdough&include=content")).body;
    expect(withContent.items[0].contentMarkdown).toContain("open and airy");
  });

  test("a scoped key finds only items in its scope; another account finds none of alice's", async () => {
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["baking"] } });
    expect(await found("bread", "", scoped)).toEqual(["sourdough"]);
    expect(await found("kubernetes", "", scoped)).toEqual([]);
    expect(await found("bread", "", bobKey)).toEqual([]);
    expect(await found("kubernetse", "", bobKey)).toEqual([]);
  });

  test("edits, tags and deletions reach the index", async () => {
    await update(ids.weekly, { title: "Weekly reading list: zeppelins", tags: ["Reading Notes"] });
    await eventually(async () => (await found("zeppelins")).includes("weekly"));
    await eventually(async () => (await found('"reading notes"')).includes("weekly"));
    await update(ids.weekly, { tags: [] });
    await eventually(async () => !(await found('"reading notes"')).includes("weekly"));
    await trove.api("/api/items/delete", { method: "POST", json: { ids: [ids.weekly] } });
    expect(await found("zeppelins")).toEqual([]);
  });

  test("snippets stay within 600 bytes, whole characters, with the match", async () => {
    const filler = "Ünïcödé wörds ünd 漢字 everywhere. ".repeat(200);
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: "https://search.example.test/long", html: page("Long read", `${filler}\nThe quetzal appears here.\n${filler}`) } });
    const id = (await res.json()).id;
    await eventually(async () => (await search("q=quetzal")).body.count === 1);
    const hit = (await search("q=quetzal")).body.items[0];
    expect(hit.id).toBe(id);
    expect(Buffer.byteLength(hit.search.snippet, "utf8")).toBeLessThanOrEqual(600);
    expect(hit.search.snippet).toContain("quetzal");
    expect(hit.search.snippet).not.toContain("\uFFFD");
  });

  test("modes: default hybrid is served lexically; semantic is unavailable", async () => {
    expect((await search("q=bread")).body.mode).toBe("lexical");
    expect((await search("q=bread&mode=lexical")).body.mode).toBe("lexical");
    expect((await search("q=bread&mode=hybrid")).body.mode).toBe("lexical");
    const semantic = await search("q=bread&mode=semantic");
    expect(semantic.status).toBe(503);
    expect(semantic.body.error).toBe("semantic_unavailable");
    expect((await search("q=bread&mode=fuzzy")).status).toBe(400);
  });

  test("hostile q: 400 for missing, blank or too long, otherwise 200", async () => {
    for (const bad of ["", "q=", "q=%20%20%20", `q=${"a".repeat(10_240)}`, "q=a%00b"]) {
      const res = await search(bad);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_failed");
    }
    expect((await search(`q=${"bread ".repeat(83)}`)).status).toBe(200);
    const odd = ["'", ":", "&", "|", "!", "(", ")", "\\", "%", "_", ".*", "[a-", "a:*", "'bread' & !", "-", "--bread", '"', '"bread', "OR", "or or", "😀", "bread 😀", "*", "<->", "a'b:c&d|e!f(g", "\u200b", "ꙮ"];
    for (const q of odd) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.items)).toBe(true);
    }
  });

  test("search:reindex restores a wiped index", async () => {
    await trove.db.deleteFrom("items.search_docs").execute();
    expect(await found("bread")).toEqual([]);
    const n = await itemsSearchIndex(trove.db).indexer.reindex();
    expect(n).toBeGreaterThanOrEqual(7);
    expect((await found("bread")).sort()).toEqual(["soda", "sourdough"]);
    expect(await found("migration")).toEqual(["postgres"]);
  });
});
