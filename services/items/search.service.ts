// Items search: keeping the index in step with item events (never on the request path), rebuilding it, and
// answering GET /api/items/search with the list's filters and scope.
import type { Caller, ItemEventMessage } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { cutBytes } from "@trove/reader";
import { matchedField, prepareQuery, snippet, type SearchDoc, type SearchEngine, type SearchHit } from "@trove/search";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { toItem, type ItemsService } from "./items.service.ts";
import type { SearchDocsRepository, SearchSource } from "./search-docs.repository.ts";
import { indexedContentBytes, snippetBytes, withinContentBudget, type SearchQuery } from "./search-shapes.ts";
import type { SemanticItemSearch } from "./semantic-search.service.ts";

/**
 * Content a snippet is looked for in: the first 16 KB (a match further in shows the content's start). Bounds what
 * a page of up to 1,000 results reads and folds on the event loop; ranking looks at the first 1 KB only, so the
 * best-ranked content matches lie well inside it.
 */
const snippetSourceBytes = 16 * 1024;

/** Keeps the index in step: from item events, or rebuilt whole. */
export class SearchIndexer {
  constructor(
    private readonly engine: SearchEngine,
    private readonly docs: SearchDocsRepository,
  ) {}

  /** Brings the items' documents in line with the database: upserted when the item exists, removed when not. */
  async refresh(accountId: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    const sources = await this.docs.sources(accountId, unique, indexedContentBytes);
    const found = new Set(sources.map((s) => s.id));
    await this.engine.remove(accountId, unique.filter((id) => !found.has(id)));
    await this.engine.index(sources.map(docOf));
  }

  /**
   * The consumer's handler, for a batch of item events: one refresh per account of the items they name (each
   * once). Every refresh re-reads its items, so order and repeats do not matter.
   */
  async onEvents(events: ItemEventMessage[]): Promise<void> {
    const byAccount = new Map<string, Set<string>>();
    for (const e of events) byAccount.set(e.accountId, (byAccount.get(e.accountId) ?? new Set()).add(e.itemId));
    for (const [accountId, ids] of byAccount) await this.refresh(accountId, [...ids]);
  }

  /** Rebuilds every item's document from the database; returns how many were indexed. */
  async reindex(batch = 500): Promise<number> {
    let after = "";
    let n = 0;
    for (;;) {
      const sources = await this.docs.allAfter(after, batch, indexedContentBytes);
      if (sources.length === 0) return n;
      await this.engine.index(sources.map(docOf));
      n += sources.length;
      after = sources.at(-1)!.id;
    }
  }

  /** On start: an empty index next to existing items (just upgraded) is filled in the background. */
  async reindexIfEmpty(): Promise<number> {
    if (!(await this.docs.isEmpty())) return 0;
    return this.reindex();
  }
}

export class SearchService {
  constructor(
    private readonly engine: SearchEngine,
    private readonly docs: SearchDocsRepository,
    private readonly repo: ItemsRepository,
    private readonly items: ItemsService,
    private readonly byMeaning?: SemanticItemSearch,
  ) {}

  /** `semantic` and `hybrid` go by meaning when vectors are there (semantic-search.service.ts); else lexical. */
  async search(caller: Caller, q: SearchQuery) {
    return (await this.byMeaning?.search(caller, q, (lq) => this.lexical(caller, lq))) ?? this.lexical(caller, q);
  }

  async lexical(caller: Caller, q: SearchQuery) {
    const text = q.q.trim();
    if (text === "") throw new AppError("validation_failed", "q is required", { fields: { q: "must not be blank" } });
    if (q.mode === "semantic") throw new AppError("semantic_unavailable", "semantic search is not available yet; use mode=lexical or hybrid");
    const filter = await this.items.filterOf(caller, { ...q, q: undefined });
    const limit = q.limit ?? 200;
    const offset = q.offset ?? 0;
    const { hits, count } = await this.engine.query({
      accountId: caller.accountId,
      q: text,
      ...this.repo.searchFilter(caller.accountId, filter),
      limit,
      offset,
    });
    const byId = new Map((await this.repo.getMany(caller.accountId, hits.map((h) => h.id), null)).map((r) => [r.id, r]));
    let rows = hits.map((h) => byId.get(h.id)).filter((r): r is ItemRow => r !== undefined);
    const withContent = q.include === "content";
    if (withContent) rows = withinContentBudget(rows);
    // Content is read again only for the rows whose snippet comes from it.
    const hitOf = new Map(hits.map((h) => [h.id, h]));
    const fromContent = rows.filter((r) => { const m = hitOf.get(r.id)!.matched; return m === null || ("weight" in m && m.weight === "D"); });
    const heads = new Map((await this.docs.sources(caller.accountId, fromContent.map((r) => r.id), snippetSourceBytes)).map((s) => [s.id, s]));
    if (withContent) await this.repo.addContents(caller.accountId, rows);
    const terms = prepareQuery(text).terms;
    const items = rows.map((r) => ({ ...toItem(r, withContent), search: found(hitOf.get(r.id)!, heads.get(r.id), r, terms) }));
    const next = offset + items.length;
    return { items, limit, offset, count, nextOffset: next < count ? next : null, mode: "lexical" as const };
  }
}

function docOf(s: SearchSource): SearchDoc {
  const tags = (s.tags ?? []).map((t) => t.name).join(" ");
  return {
    id: s.id,
    accountId: s.account_id,
    fields: [
      { name: "title", weight: "A", text: s.title },
      { name: "tags", weight: "B", text: tags },
      { name: "notes", weight: "B", text: s.notes },
      { name: "url", weight: "C", text: urlWords(s.url) },
      { name: "content", weight: "D", text: cutBytes(s.content_head ?? "", indexedContentBytes).text },
    ],
    fuzzy: [
      { name: "title", text: s.title },
      { name: "url", text: urlWords(s.url) },
    ],
  };
}

/** A URL's words: the parser would keep a whole URL as one token; without the scheme and separators its parts are
 * findable (hyphenated parts stay whole, as the parser reads "xylophone-tuning" in a query too). */
const urlWords = (url: string) => url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/[/?#=&_.:]+/g, " ");

const fieldOrder = ["title", "tags", "notes", "url", "content"] as const;
const weightFields = { A: ["title"], B: ["tags", "notes"], C: ["url"], D: ["content"] } as const;

function found(hit: SearchHit, source: SearchSource | undefined, row: ItemRow, terms: string[]) {
  const texts: Record<(typeof fieldOrder)[number], string> = {
    title: row.title,
    tags: row.tag_list.map((t) => t.name).join(", "),
    notes: row.notes,
    url: row.url,
    content: source?.content_head ?? "",
  };
  const pick = (names: readonly (typeof fieldOrder)[number][]) => matchedField(names.map((name) => ({ name, text: texts[name] })), terms);
  const field = (
    hit.matched === null ? pick(fieldOrder) : "weight" in hit.matched ? pick(weightFields[hit.matched.weight]) : hit.matched.fuzzy
  ) as (typeof fieldOrder)[number];
  return { score: hit.score, matchedField: field, snippet: snippet(texts[field] ?? "", terms, snippetBytes) };
}
