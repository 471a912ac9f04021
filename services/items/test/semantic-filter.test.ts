// The in-memory fallback (usearch exact scan) under a filter that its nearest chunks never pass: more than
// maxCandidateChunks chunks of other documents lie nearer the query than the one document the filter keeps (a rare
// tag among near-duplicates). The widening search stops at its bound with nothing; the fallback then scans the
// filtered documents alone and finds it. Vectors are written as given (no model runs here), into a real table on
// PGlite, through the store and the search that the services use.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import type { Database } from "@trove/db";
import { createVectorTable, maxCandidateChunks, minSimilarity, SemanticSearch, UsearchStore } from "@trove/search";
import { freshPglite } from "@trove/testing";

const dims = 512;
const model = "fixed-vectors";
const account = "acct-1";
// Unit vectors with every component +-1/sqrt(512): within the int8 scale the fallback quantizes with.
const signs = (seed: number) => {
  const v = new Float32Array(dims);
  let x = seed;
  for (let i = 0; i < dims; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    v[i] = (x & 1024 ? 1 : -1) / Math.sqrt(dims);
  }
  return v;
};
const query = signs(7);
const other = signs(99);
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

let database: Database;
let store: UsearchStore;
let search: SemanticSearch;
const nearDocs = Math.ceil(maxCandidateChunks / 8) + 10;

beforeAll(async () => {
  database = await freshPglite();
  const db = database.db;
  await sql`create schema t`.execute(db);
  await sql`create table t.docs (id text primary key, tag text)`.execute(db);
  await createVectorTable(db, "t", "t.docs");
  // Exact copies of the query (8 chunks each) on untagged documents; the tagged one halfway between the query and
  // an unrelated direction.
  const half = query.map((x, i) => 0.6 * x + 0.8 * other[i]!);
  const norm = Math.sqrt(cosine(half, half));
  const tagged = half.map((x) => x / norm);
  const docs = [
    ...Array.from({ length: nearDocs }, (_, i) => ({ id: `near-${String(i).padStart(4, "0")}`, tag: null, vectors: Array.from({ length: 8 }, () => query) })),
    { id: "tagged", tag: "rare", vectors: [tagged] },
  ];
  await db.insertInto("t.docs").values(docs.map((d) => ({ id: d.id, tag: d.tag }))).execute();
  store = new UsearchStore(db, "t.search_vectors", model, dims);
  await store.start();
  await store.whenLoaded();
  for (const d of docs) {
    await store.upsert({
      accountId: account,
      id: d.id,
      model,
      dims,
      hash: "h",
      chunks: d.vectors.map((vector, chunk) => ({ chunk, kind: "body" as const, text: `${d.id} ${chunk}`, vector })),
    });
  }
  // Only the query's vector is needed here: nothing is embedded.
  search = new SemanticSearch(store, { id: model, dimension: dims, embed: () => Promise.reject(new Error("not used")) });
}, 120_000);
afterAll(async () => {
  await store?.stop();
  await database?.close();
});

test("the tagged document lies past the widening bound, above the similarity floor", () => {
  expect(nearDocs * 8).toBeGreaterThan(maxCandidateChunks);
  const half = query.map((x, i) => 0.6 * x + 0.8 * other[i]!);
  expect(cosine(half, query) / Math.sqrt(cosine(half, half))).toBeGreaterThan(minSimilarity);
});

test("unfiltered, the nearest documents are the exact copies", async () => {
  const hits = await search.nearest(account, query, 5);
  expect(hits).toHaveLength(5);
  expect(hits.every((h) => h.id.startsWith("near-"))).toBe(true);
});

test("filtered to the rare tag, the fallback scans the filtered documents and finds the one it keeps", async () => {
  const restrict = database.db.selectFrom("t.docs").select("id").where("tag", "=", "rare");
  const hits = await search.nearest(account, query, 5, restrict);
  expect(hits.map((h) => h.id)).toEqual(["tagged"]);
  expect(hits[0]!.score).toBeGreaterThan(minSimilarity);
});

test("a filter that keeps nothing finds nothing", async () => {
  const restrict = database.db.selectFrom("t.docs").select("id").where("tag", "=", "absent");
  expect(await search.nearest(account, query, 5, restrict)).toEqual([]);
});
