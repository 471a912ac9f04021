// Semantic and hybrid search with the real model on the worker pool, on both stacks: PGlite (pgvector's HNSW) and
// PostgreSQL + NATS (pgvector when the server has it, else the usearch fallback). Items, notes and GET /api/search;
// meaning-only matches, fusion, an item without vectors found lexically, filters, scope, another account, hostile q.
// Vectors follow item and note events (never the request path), so each check waits for them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { addClientKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><article><h1>${title}</h1><p>${body}</p></article></main></body></html>`;

// No word here starts with "car" (the lexical search matches the last word as a prefix), so a query "car" can only
// find the automobile article by meaning.
const corpus = {
  auto: {
    title: "The history of the automobile",
    body: "Motor vehicles changed how people commute. Ford's Model T made the automobile affordable to families, and engines, brakes and tyres improved every decade. Today electric vehicles are replacing petrol engines on the motorway.",
  },
  bread: {
    title: "Baking sourdough at home",
    body: "Feed the starter twice a day. The dough needs flour, water and salt; bake it in a hot oven until the crust is dark and the crumb is airy.",
  },
  music: {
    title: "An evening at the symphony",
    body: "The orchestra played Brahms and the violins were superb. The conductor took three bows before the audience went home.",
  },
  garden: {
    title: "Planting tomatoes in spring",
    body: "Sow the seeds indoors, then move the seedlings to the garden once the frost has passed. Water them every morning.",
  },
};
type Key = keyof typeof corpus;
const ids = {} as Record<Key, string>;
const names = () => Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));

const get = async (path: string, key?: string) => {
  const res = await trove.api(path, key ? { key } : undefined);
  return { status: res.status, body: await res.json() };
};
const items = async (q: string, extra = "", key?: string) => {
  const r = await get(`/api/items/search?q=${encodeURIComponent(q)}${extra}`, key);
  expect(r.status).toBe(200);
  return { ...r.body, names: r.body.items.map((i: { id: string }) => names()[i.id] ?? i.id) as string[] };
};

beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_SEMANTIC: "on" });
  for (const [k, v] of Object.entries(corpus)) {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: `https://semantic.example.test/${k}`, html: page(v.title, v.body) } });
    ids[k as Key] = (await res.json()).id;
  }
  await trove.api(`/api/items/${ids.bread}`, { method: "POST", json: { tags: ["baking"] } });
  // Every item embedded: each is its own nearest by its title.
  for (const v of Object.values(corpus)) {
    await eventually(async () => (await items(v.title, "&mode=semantic")).names.includes(Object.keys(corpus).find((k) => corpus[k as Key] === v)!), 120_000);
  }
}, 240_000);
afterAll(() => trove.stop());

describe("semantic search", () => {
  test("health names the vector backend", async () => {
    const { body } = await get("/api/health");
    // PGlite always loads pgvector; a PostgreSQL server without it gets the fallback.
    const { rows } = await sql`select 1 from pg_available_extensions where name = 'vector'`.execute(trove.db);
    expect(body.vectors).toEqual({ backend: trove.stack === "embedded" || rows.length > 0 ? "pgvector" : "usearch-exact" });
  });

  test("a query that matches only by meaning: car finds the automobile article, which lexical search does not", async () => {
    expect((await items("car", "&mode=lexical")).names).toEqual([]);
    const semantic = await items("car", "&mode=semantic");
    expect(semantic.mode).toBe("semantic");
    expect(semantic.names[0]).toBe("auto");
    const hit = semantic.items[0].search;
    expect(hit.score).toBeGreaterThan(0);
    expect(["title", "content"]).toContain(hit.matchedField);
    expect(Buffer.byteLength(hit.snippet)).toBeLessThanOrEqual(600);
    expect(hit.snippet.length).toBeGreaterThan(0);
    // Hybrid (the default) has it too, by meaning alone.
    const hybrid = await items("car");
    expect(hybrid.mode).toBe("hybrid");
    expect(hybrid.names[0]).toBe("auto");
  });

  test("hybrid fuses the lists: found both ways ranks above found one way", async () => {
    // "sourdough" matches one item by its words and by meaning; the others come (if at all) by meaning only.
    const r = await items("sourdough", "&mode=hybrid");
    expect(r.mode).toBe("hybrid");
    expect(r.names[0]).toBe("bread");
    expect(r.items[0].search.matchedField).toBe("title");
    expect(r.count).toBeGreaterThanOrEqual(r.items.length);
    const scores = r.items.map((i: { search: { score: number } }) => i.search.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  test("an item without vectors is still found lexically in hybrid", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: "https://semantic.example.test/quokka", html: page("Quokka sightings on Rottnest", "A small marsupial that seems to smile.") } });
    const id = (await res.json()).id as string;
    const title = encodeURIComponent("Quokka sightings on Rottnest");
    await eventually(async () => (await items(title, "&mode=semantic")).items.some((i: { id: string }) => i.id === id), 60_000);
    // Its vectors gone (as before the consumer reaches it): hybrid still finds it by its words.
    await trove.db.deleteFrom("items.search_vectors").where("id", "=", id).execute();
    if (trove.stack === "embedded") expect((await items(title, "&mode=semantic")).items.some((i: { id: string }) => i.id === id)).toBe(false);
    const r = await items("quokka");
    expect(r.mode).toBe("hybrid");
    const hit = r.items.find((i: { id: string }) => i.id === id);
    expect(hit.search.matchedField).toBe("title");
    expect(hit.search.snippet).toContain("Quokka");
  });

  test("an edit is embedded again and a deleted item is no longer found by meaning", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: "https://semantic.example.test/violin", html: page("Tuning a violin before a concert", "Turn the pegs gently and check each string against the A.") } });
    const id = (await res.json()).id as string;
    const results = async (q: string) => (await items(q, "&mode=semantic")).items.map((i: { id: string }) => i.id) as string[];
    const has = async (q: string) => (await results(q)).includes(id);
    // Its own title is its nearest text: first once embedded.
    await eventually(async () => (await results("Tuning a violin before a concert"))[0] === id, 60_000);
    await trove.api(`/api/items/${id}`, { method: "POST", json: { title: "Repairing a bicycle puncture" } });
    await eventually(async () => (await results("Repairing a bicycle puncture"))[0] === id, 60_000);
    await trove.api("/api/items/delete", { method: "POST", json: { ids: [id] } });
    await eventually(async () => !(await has("Repairing a bicycle puncture")), 60_000);
    // The others are still there (the fallback's packed cache moved a slot into the hole).
    expect((await items("car", "&mode=semantic")).names[0]).toBe("auto");
    // Three embeddings in turn on the model's worker: on a loaded machine their waits add up past one minute.
  }, 180_000);

  test("filters, a scoped key and another account hold", async () => {
    // Only the bread item is tagged baking: car finds nothing there by meaning.
    expect((await items("car", "&mode=semantic&tags=baking")).names).not.toContain("auto");
    expect((await items("bread", "&mode=semantic&tags=baking")).names).toEqual(["bread"]);
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["baking"] } });
    expect((await items("car", "&mode=semantic", scoped)).names).not.toContain("auto");
    expect((await items("car", "", scoped)).names).not.toContain("auto");
    expect((await items("car", "&mode=semantic", bobKey)).items).toEqual([]);
    expect((await items("car", "", bobKey)).items).toEqual([]);
    // Archived items are left out unless the status asks for them.
    await trove.api(`/api/items/${ids.music}`, { method: "POST", json: { status: "archived" } });
    await eventually(async () => !(await items("orchestra concert", "&mode=semantic")).names.includes("music"), 30_000);
    expect((await items("orchestra concert", "&mode=semantic&status=archived")).names).toContain("music");
  });

  test("hostile q: 200 with results or 4xx, never 5xx", async () => {
    for (const q of ["🚗🚗🚗", "'; drop table items.search_vectors; --", "a".repeat(500), "東京都", "\u202etfel-ot-thgir", "<script>alert(1)</script>", "\\u0000", "%", "OR AND -"]) {
      for (const mode of ["semantic", "hybrid"]) {
        const r = await get(`/api/items/search?q=${encodeURIComponent(q)}&mode=${mode}`);
        expect(r.status).toBe(200);
        expect(Array.isArray(r.body.items)).toBe(true);
      }
    }
    expect((await get("/api/items/search?q=%20%20&mode=semantic")).status).toBe(400);
    expect((await get(`/api/items/search?q=${"a".repeat(501)}&mode=semantic`)).status).toBe(400);
    expect((await get("/api/items/search?q=a%00b&mode=semantic")).status).toBe(400);
  });

  test("notes and GET /api/search find by meaning too", async () => {
    const res = await trove.api("/api/notes", { method: "POST", json: { title: "Vehicle maintenance log", bodyMarkdown: "Changed the engine oil and rotated the tyres.\nThe brakes squeak on the motorway." } });
    const noteId = (await res.json()).note.id as string;
    let notes: any;
    await eventually(async () => {
      notes = (await get("/api/notes/search?q=car&mode=semantic")).body;
      return notes.results?.some((r: { id: string }) => r.id === noteId);
    }, 60_000);
    expect(notes.mode).toBe("semantic");
    expect(notes.results[0].id).toBe(noteId);
    expect((await get("/api/notes/search?q=car&mode=lexical")).body.results).toEqual([]);
    expect((await get("/api/notes/search?q=car&mode=semantic", bobKey)).body.results).toEqual([]);

    const both = (await get("/api/search?q=car&mode=semantic")).body;
    expect(both.mode).toBe("semantic");
    const found = both.results.map((r: { type: string; id: string }) => `${r.type}:${r.id}`);
    expect(found).toContain(`item:${ids.auto}`);
    expect(found).toContain(`note:${noteId}`);
    for (const r of both.results) expect(Buffer.byteLength(r.snippet)).toBeLessThanOrEqual(600);
    expect((await get("/api/search?q=car")).body.mode).toBe("hybrid");
    expect((await get("/api/search?q=car", bobKey)).body.results).toEqual([]);
  });
});
