// A realistic library for the HTTP benchmarks: real article pages from the shared corpus (never copied into the
// repository) saved through POST /api/ingest with `html`, so every item's content went through extraction and
// storage, then tagged, annotated and highlighted through the API; optionally grown to thousands of items by
// copying those rows in SQL (new ids, URLs and dates; tags, highlights and media copied with them).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@trove/testing";
import { call } from "./api.ts";
import { findCorpus as findSharedCorpus } from "../libs/extract/test/quality.ts";
import { query, type Db } from "./sql.ts";

export interface CorpusPage {
  url: string;
  html: string;
}

/** The shared corpus (see libs/extract/test/quality.ts); the bench cannot run without it. */
export function findCorpus(): string {
  const dir = findSharedCorpus();
  if (!dir) throw new Error("no shared/corpus: set TROVE_CORPUS_DIR or put it beside the checkout");
  return dir;
}

/**
 * Up to `limit` pages: the Readability test pages, then the snippet-checked pages, in name order. Each is saved
 * under a `.test` URL (its original host and path where known), which never resolves; with `html` no fetch is made.
 */
export function corpusPages(limit: number): CorpusPage[] {
  const root = findCorpus();
  const out: CorpusPage[] = [];
  const pagesDir = join(root, "pages");
  if (existsSync(pagesDir)) {
    for (const site of readdirSync(pagesDir).sort()) {
      const file = join(pagesDir, site, "source.html");
      if (existsSync(file)) out.push({ url: `https://www.${site}.test/articles/${site}`, html: readFileSync(file, "utf8") });
    }
  }
  const snippets = join(root, "snippets");
  if (existsSync(join(snippets, "expected.json"))) {
    const expected = JSON.parse(readFileSync(join(snippets, "expected.json"), "utf8")) as Record<string, { file: string }>;
    const byFile = [...Object.entries(expected)].sort((a, b) => (a[1].file < b[1].file ? -1 : 1));
    for (const [original, { file }] of byFile) {
      if (out.length >= limit) break;
      const path = join(snippets, "pages", file);
      if (!existsSync(path)) continue;
      // A few keys are file names, not URLs.
      const u = URL.canParse(original) ? new URL(original) : null;
      const url = u && /^https?:$/.test(u.protocol) && u.hostname ? `https://${u.hostname}.test${u.pathname}${u.search}` : `https://snippets.corpus.test/${encodeURIComponent(file)}`;
      out.push({ url, html: readFileSync(path, "utf8") });
    }
  }
  return out.slice(0, limit);
}

const tagPool = [
  "reading", "research", "news", "recipes", "travel", "work", "later", "history", "science", "politics",
  "sport", "tech", "culture", "health", "finance", "long-read", "reference", "to-cite", "favourites", "local",
];

/** One to four tags, spread over the pool by the item's position. */
export function tagsFor(i: number): string[] {
  const n = 1 + (i % 4);
  return [...new Set(Array.from({ length: n }, (_, k) => tagPool[(i * 7 + k * 3) % tagPool.length]!))];
}

/** Up to `n` passages of plain prose in the Markdown (whole words, 60-200 characters), to highlight. */
export function passages(markdown: string, n: number): string[] {
  const lines = markdown.split("\n").filter((l) => l.length >= 120 && /^[\p{L}"„“(]/u.test(l) && !/[[\]|*_`<>]/.test(l));
  const picked: string[] = [];
  for (let k = 0; k < lines.length && picked.length < n; k += Math.max(1, Math.floor(lines.length / n))) {
    const line = lines[k]!;
    const start = line.indexOf(" ", Math.floor(line.length / 4)) + 1;
    let end = line.lastIndexOf(" ", Math.min(line.length, start + 200));
    if (end - start < 60) end = Math.min(line.length, start + 200);
    const text = line.slice(start, end).trim();
    if (text.length >= 40) picked.push(text);
  }
  return picked;
}

export interface SavedItem {
  id: string;
  contentSize: number;
  highlights: number;
  tags: number;
}

export interface Loaded {
  items: SavedItem[];
  /** Saves whose page gave no content; those items were deleted again, so every item has content. */
  withoutContent: number;
  seconds: number;
}

/**
 * Saves each page through the API (`html`, so it is extracted and stored), then tags every item, writes a note on
 * every fifth, and highlights one to three passages on every other one. `concurrency` saves run at once.
 */
export async function loadThroughApi(base: string, pages: CorpusPage[], concurrency = 3): Promise<Loaded> {
  const started = performance.now();
  const items: SavedItem[] = [];
  const empty: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < pages.length; i = next++) {
      const page = pages[i]!;
      const saved = await call(base, "POST", "/api/ingest", { url: page.url, html: page.html, source: "bench" });
      if (!saved.extracted) {
        empty.push(saved.id);
        continue;
      }
      const tags = tagsFor(i);
      await call(base, "POST", `/api/items/${saved.id}`, { tags, ...(i % 5 === 0 ? { notes: "Read again before the next review; compare with the earlier piece." } : {}) });
      const item = await call(base, "GET", `/api/items/${saved.id}`);
      const markdown: string = item.contentMarkdown ?? "";
      if (!markdown) {
        empty.push(saved.id);
        continue;
      }
      let highlights = 0;
      if (i % 2 === 0) {
        for (const [k, text] of passages(markdown, 1 + (i % 3)).entries()) {
          await call(base, "POST", `/api/items/${saved.id}/highlights`, { text, ...(k === 0 ? { note: "Key point." } : {}) });
          highlights++;
        }
      }
      items.push({ id: saved.id, contentSize: item.contentSize, highlights, tags: tags.length });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (let k = 0; k < empty.length; k += 500) await call(base, "POST", "/api/items/delete", { ids: empty.slice(k, k + 500) });
  return { items, withoutContent: empty.length, seconds: (performance.now() - started) / 1000 };
}

/** The item to read alone: one with highlights whose Markdown size is nearest the library's median. */
export function typicalItem(items: SavedItem[]): SavedItem {
  const sizes = items.map((x) => x.contentSize).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
  const candidates = items.filter((x) => x.highlights > 0);
  if (candidates.length === 0) throw new Error("no saved item has highlights");
  return candidates.reduce((best, x) => (Math.abs(x.contentSize - median) < Math.abs(best.contentSize - median) ? x : best));
}

/** The columns of an items.* table, in order (so copies in SQL survive schema changes). */
export async function columnsOf(db: Db, table: string): Promise<string[]> {
  const rows = await query<{ column_name: string }>(db, `select column_name from information_schema.columns
    where table_schema = 'items' and table_name = $1 order by ordinal_position`, [table]);
  return rows.map((r) => r.column_name);
}

/**
 * Grows the library to `target` items by copying the saved rows in SQL, in one transaction: each copy gets a new
 * id, its own URL (`copy=<n>` added) and hash, and dates one week older per round (less past 1,000 rounds); its tag and collection links,
 * highlights and media rows are copied with it, so the copies read exactly like the originals. Then ANALYZE, as
 * PostgreSQL's autovacuum would after a load (PGlite has none). Answers the account and the number of rows added.
 */
export async function copyToSize(db: Db, target: number): Promise<{ account: string; added: number; seconds: number }> {
  const started = performance.now();
  const { account, added } = await db.transaction().execute(async (tx) => {
    const rows = await query<{ account_id: string; n: number }>(tx, "select account_id, count(*)::int as n from items.items group by account_id");
    if (rows.length !== 1) throw new Error(`expected one account's items, found ${rows.length} accounts`);
    const { account_id: account, n } = rows[0]!;
    const need = target - n;
    if (need <= 0) return { account, added: 0 };
    const rounds = Math.ceil(need / n);
    await query(tx, `create temp table bench_copy on commit drop as
      select s.id as src_id, gen_random_uuid()::text as id, r.k
      from (select id from items.items where account_id = $1) s cross join generate_series(1, $2::int) as r(k)
      order by r.k, s.id limit $3::int`, [account, rounds, need]);
    const copy = async (table: string, key: string, replace: Record<string, string>) => {
      const cols = await columnsOf(tx, table);
      const select = cols.map((c) => replace[c] ?? `t.${c}`).join(", ");
      await query(tx, `insert into items.${table} (${cols.join(", ")}) select ${select} from items.${table} t join bench_copy c on c.src_id = t.${key}`);
    };
    const url = `t.url || case when position('?' in t.url) > 0 then '&' else '?' end || 'copy=' || c.k`;
    // A week older per round up to 1,000 rounds (100k items from 100); past that the rounds share the same 19 years.
    const step = Math.floor(7 * 86_400 * Math.min(1, 1000 / rounds));
    await copy("items", "id", {
      id: "c.id",
      url,
      url_hash: `left(encode(sha256(convert_to(${url}, 'UTF8')), 'hex'), 32)`,
      created_at: `t.created_at - c.k::int8 * ${step}`,
      updated_at: `t.updated_at - c.k::int8 * ${step}`,
      last_seen_at: `t.last_seen_at - c.k::int8 * ${step}`,
    });
    await copy("item_tags", "item_id", { item_id: "c.id" });
    await copy("item_collections", "item_id", { item_id: "c.id" });
    await copy("highlights", "item_id", { id: "gen_random_uuid()::text", item_id: "c.id" });
    await copy("media", "item_id", { id: "gen_random_uuid()::text", item_id: "c.id" });
    return { account, added: need };
  });
  await query(db, "analyze");
  return { account, added, seconds: (performance.now() - started) / 1000 };
}
