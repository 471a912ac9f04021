// Broad queries: past TROVE_SEARCH_RANKED matches only the newest that many are ranked, the older matches follow
// them newest first, and `count` and paging still cover every match (a server ranking at most 3 here).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><article><h1>${title}</h1><p>${body}</p></article></main></body></html>`;
// Oldest first; "lantern" is in the title of the oldest (best ranked if it were ranked) and of the fifth.
const library = [
  { title: "Lantern festival at the harbour", body: "Paper boats carry a small flame across the water at night." },
  { title: "Notes from the orchard", body: "A lantern hung by the gate; the pears ripened late this year." },
  { title: "Walking the old railway", body: "Past the signal box a lantern still swings in the wind." },
  { title: "A winter almanac", body: "Short days, a lantern on the sill, and soup every evening." },
  { title: "Lantern repair for beginners", body: "Wicks, glass chimneys and brass fittings, cleaned and trimmed." },
  { title: "Cathedral at dusk", body: "The verger walks the aisle with a lantern before the doors close." },
];
const ids: string[] = [];

const search = async (query: string) => {
  const res = await trove.api(`/api/items/search?mode=lexical&${query}`);
  expect(res.status).toBe(200);
  return res.json();
};
const at = (body: { items: { id: string }[] }) => body.items.map((i) => ids.indexOf(i.id));

beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_SEARCH_RANKED: "3" });
  for (const [i, it] of library.entries()) {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: `https://ranked.example.test/${i}`, html: page(it.title, it.body) } });
    ids.push((await res.json()).id);
  }
  await eventually(async () => (await search("q=lantern")).count === 6, 20_000);
}, 60_000);
afterAll(() => trove.stop());

test("the newest 3 matches are ranked (a title match first), the older 3 follow newest first; count covers all 6", async () => {
  const all = await search("q=lantern&limit=10");
  expect(all.count).toBe(6);
  // Of the newest three (3, 4, 5), item 4 matches in its title; the oldest title match (0) is not ranked.
  expect(at(all)[0]).toBe(4);
  expect(at(all).slice(0, 3).sort()).toEqual([3, 4, 5]);
  expect(at(all).slice(3)).toEqual([2, 1, 0]);
  expect(all.items[0].search.matchedField).toBe("title");
});

test("pages across the ranked and the older matches, and past the ranked ones alone, agree with the whole list", async () => {
  const whole = at(await search("q=lantern&limit=10"));
  const pages: number[] = [];
  for (let offset = 0; offset < 6; offset += 2) {
    const p = await search(`q=lantern&limit=2&offset=${offset}`);
    expect(p.count).toBe(6);
    pages.push(...at(p));
  }
  expect(pages).toEqual(whole);
  const straddling = await search("q=lantern&limit=2&offset=2");
  expect(at(straddling)).toEqual(whole.slice(2, 4));
  const beyond = await search("q=lantern&limit=5&offset=4");
  expect(at(beyond)).toEqual([1, 0]);
  expect(beyond.count).toBe(6);
  expect(beyond.nextOffset).toBeNull();
  const past = await search("q=lantern&limit=5&offset=6");
  expect(past.items).toEqual([]);
  expect(past.count).toBe(6);
});

test("matches up to the cap are all ranked: the oldest one, matching in its title, comes first", async () => {
  const few = await search("q=festival OR pears OR signal");
  expect(few.count).toBe(3);
  expect(at(few)[0]).toBe(0);
  expect(few.items[0].search.matchedField).toBe("title");
});
