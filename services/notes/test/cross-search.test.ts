// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. GET
// /api/search fuses the items search (asked over the bus as the caller) and the notes search; both indexes follow
// events, so each test waits for what it searches.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function call(path: string, opts: { method?: string; json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, opts);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as any, text };
}

async function ok(path: string, json: unknown, key?: string) {
  const r = await call(path, { method: "POST", json, key });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}

const page = (title: string, text: string) => `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${text}</p><p>${"Filler sentence about nothing in particular. ".repeat(20)}</p></article></body></html>`;

async function item(slug: string, title: string, text: string, key?: string): Promise<string> {
  return (await ok("/api/ingest", { url: `https://cross.example.test/${slug}`, html: page(title, text) }, key)).id;
}

/** A search once every one of `ids` is in it. */
async function search(query: string, ids: string[], key?: string): Promise<any> {
  let last: any;
  await eventually(async () => {
    last = await call(`/api/search?${query}`, { key });
    const got = new Set((last.body.results ?? []).map((r: any) => r.id));
    return ids.every((id) => got.has(id));
  }, 10_000);
  return last.body;
}

describe("GET /api/search", () => {
  let itemId = "";
  let noteId = "";
  beforeAll(async () => {
    itemId = await item("quokka", "Quokka field guide", "The quokka lives on Rottnest Island.");
    noteId = (await ok("/api/notes", { title: "Trip plan", bodyMarkdown: "# Trip\n\nferry times\nsee a quokka at noon\nlunch" })).note.id;
  });

  test("items and notes in one list, each with its type, snippet, matched field and score; notes with revision and line range", async () => {
    const r = await search("q=quokka", [itemId, noteId]);
    expect(r.mode).toBe("lexical");
    expect(r.count).toBeGreaterThanOrEqual(2);
    const it = r.results.find((x: any) => x.id === itemId);
    const note = r.results.find((x: any) => x.id === noteId);
    expect(it).toMatchObject({ type: "item", title: "Quokka field guide", matchedField: "title" });
    expect(note).toMatchObject({ type: "note", title: "Trip plan", matchedField: "body", revision: 1, lineRange: { startLine: 4, endLine: 4 } });
    expect(note.snippet).toContain("quokka");
    for (const x of r.results) {
      expect(Buffer.byteLength(x.snippet, "utf8")).toBeLessThanOrEqual(600);
      expect(x.score).toBeGreaterThan(0);
      expect(x.content).toBeUndefined();
    }
    expect(r.truncated).toBe(false);
    expect((await call("/api/search?q=quokka&types=note")).body.results.map((x: any) => x.type)).not.toContain("item");
    expect((await call("/api/search?q=quokka&types=item")).body.results.map((x: any) => x.type)).not.toContain("note");
  });

  test("project and path are ranking hints; exactProject and exactPath make them filters (notes only)", async () => {
    const project = (await ok("/api/projects", { name: "Cross search", repositories: ["github.com/acme/cross"] })).project.id;
    const plain = (await ok("/api/notes", { title: "Capybara notes", bodyMarkdown: "capybara general" })).note.id;
    const inProject = (await ok("/api/notes", { title: "Capybara notes", bodyMarkdown: "capybara general", project })).note.id;
    const aboutPath = (await ok("/api/notes", { title: "Capybara notes", bodyMarkdown: "capybara general", repository: "git@github.com:acme/cross.git", paths: ["src/api/"] })).note.id;
    const capyItem = await item("capybara", "Capybara", "capybara facts");
    const all = await search("q=capybara", [plain, inProject, aboutPath, capyItem]);
    expect(all.results.length).toBe(4);

    const hinted = await search(`q=capybara&project=${encodeURIComponent("https://github.com/acme/cross")}&path=src/api/routes.ts`, [plain, inProject, aboutPath]);
    const order = hinted.results.map((x: any) => x.id);
    // In the project by repository and about the path: first; in the project by id: next; neither: after both.
    expect(order.indexOf(aboutPath)).toBe(0);
    expect(order.indexOf(inProject)).toBeLessThan(order.indexOf(plain));

    const exact = await call(`/api/search?q=capybara&project=${project}&exactProject=true`);
    expect(exact.body.results.map((x: any) => x.id).sort()).toEqual([inProject, aboutPath].sort());
    const exactPath = await call("/api/search?q=capybara&path=src/api/routes.ts&exactPath=true");
    expect(exactPath.body.results.map((x: any) => x.id)).toEqual([aboutPath]);
    expect((await call("/api/search?q=capybara&exactProject=true")).status).toBe(400);
    expect((await call("/api/search?q=capybara&project=not-an-address")).status).toBe(400);
  });

  test("include=content shares one budget fairly and reports truncation", async () => {
    const big = "Pangolin scales. ".repeat(8_000); // about 136 KB each
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await ok("/api/notes", { title: `Pangolin ${i}`, bodyMarkdown: big })).note.id);
    const small = (await ok("/api/notes", { title: "Pangolin short", bodyMarkdown: "pangolin in brief" })).note.id;
    const r = await search("q=pangolin&types=note&include=content", [...ids, small]);
    const total = r.results.reduce((n: number, x: any) => n + Buffer.byteLength(x.content, "utf8"), 0);
    expect(total).toBeLessThanOrEqual(256 * 1024);
    expect(r.truncated).toBe(true);
    const short = r.results.find((x: any) => x.id === small);
    expect(short).toMatchObject({ content: "pangolin in brief", contentTruncated: false });
    const shares = r.results.filter((x: any) => x.id !== small).map((x: any) => Buffer.byteLength(x.content, "utf8"));
    // Equal shares of what the short one left: within a character of each other.
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(4);
    for (const x of r.results.filter((x: any) => x.id !== small)) expect(x.contentTruncated).toBe(true);
  });

  test("a tag-scoped key finds only items in its scope and no notes; bob finds nothing of alice's", async () => {
    const inScope = await item("wombat-in", "Wombat burrows", "wombat digging");
    const outScope = await item("wombat-out", "Wombat diet", "wombat grazing");
    await ok(`/api/items/${inScope}`, { tags: ["cross-scope"] });
    const note = (await ok("/api/notes", { title: "Wombat note", bodyMarkdown: "wombat" })).note.id;
    await search("q=wombat", [inScope, outScope, note]);
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["cross-scope"] } });
    const r = await search("q=wombat", [inScope], scoped);
    expect(r.results.map((x: any) => x.id)).toEqual([inScope]);
    const bob = await call("/api/search?q=wombat", { key: bobKey });
    expect(bob.status).toBe(200);
    expect(bob.body.results).toEqual([]);
  });

  test("bad input answers 4xx, never 5xx; semantic is 503 until embeddings land", async () => {
    expect((await call("/api/search")).status).toBe(400);
    expect((await call("/api/search?q=%20%20")).status).toBe(400);
    expect((await call("/api/search?q=x&types=item,photo")).status).toBe(400);
    expect((await call("/api/search?q=x&limit=101")).status).toBe(400);
    for (const q of ["'", "a & b | !c", "((", "%_\\", "🦀", '"unclosed', "-", "or", ":*"]) {
      const r = await call(`/api/search?q=${encodeURIComponent(q)}`);
      expect({ q, ok: r.status === 200 || r.status === 400 }).toEqual({ q, ok: true });
    }
    const semantic = await call("/api/search?q=quokka&mode=semantic");
    expect(semantic.status).toBe(503);
    expect(semantic.body.error).toBe("semantic_unavailable");
  });
});
