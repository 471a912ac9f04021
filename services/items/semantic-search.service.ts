// Items search by meaning: `mode=semantic` (the nearest items by their chunks' vectors) and `mode=hybrid` (the
// lexical and semantic lists fused by reciprocal rank), under the list's filters and the key's scope. The vectors
// are kept by the `embed-items` consumer (embedItems below), never on the request path; only the query is embedded
// there. See docs/decisions.md, "Embeddings".
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { cutBytes } from "@trove/reader";
import { fuseRanks, hybridWeights, maxSemanticDocs, type SemanticHit, type SemanticSearch } from "@trove/search";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { toItem, type ItemsService } from "./items.service.ts";
import { snippetBytes, withinContentBudget, type SearchQuery } from "./search-shapes.ts";

type ItemFound = { score: number; matchedField: "title" | "tags" | "notes" | "url" | "content"; snippet: string };
type LexicalPage = { items: { id: string; search: ItemFound }[]; count: number };

export class SemanticItemSearch {
  constructor(
    private readonly semantic: SemanticSearch | undefined,
    private readonly repo: ItemsRepository,
    private readonly items: ItemsService,
  ) {}

  /**
   * Serves `semantic` and `hybrid`; undefined when hybrid cannot use vectors (semantic off or failing), so the
   * caller serves lexical and says so. `lexical` runs the lexical search for a window of results.
   */
  async search(caller: Caller, q: SearchQuery, lexical: (q: SearchQuery) => Promise<LexicalPage>) {
    const mode = q.mode ?? "hybrid";
    // Lexical answers a blank q (400) as well.
    if (mode === "lexical" || q.q.trim() === "") return undefined;
    if (!this.semantic) {
      if (mode === "semantic") throw new AppError("semantic_unavailable", "semantic search is off on this server (TROVE_SEMANTIC=off); use mode=lexical or hybrid");
      return undefined;
    }
    const limit = q.limit ?? 200;
    const offset = q.offset ?? 0;
    // Both lists are read from their top to the page's end; one semantic document more says whether more follow.
    const window = offset + limit;
    const filter = await this.items.filterOf(caller, { ...q, q: undefined });
    // The lexical list runs while the query is embedded on the pool.
    const lexicalWindow = mode === "hybrid" ? lexical({ ...q, mode: "lexical", include: undefined, limit: window, offset: 0 }) : undefined;
    lexicalWindow?.catch(() => {}); // awaited below, or dropped when the query cannot be embedded
    let query: Float32Array;
    try {
      query = await this.semantic.embedQuery(q.q.trim());
    } catch (err) {
      // Hybrid without vectors is the lexical search, and the response says so; semantic has nothing to serve.
      if (mode === "hybrid") return undefined;
      throw err;
    }
    const [near, lex] = await Promise.all([
      this.semantic.nearest(caller.accountId, query, Math.min(window + 1, maxSemanticDocs), this.repo.filteredIds(caller.accountId, filter)),
      lexicalWindow,
    ]);
    const lexFound = new Map((lex?.items ?? []).map((it) => [it.id, it.search]));
    const ranked = lex
      ? fuseRanks([
          { ranked: lex.items, weight: hybridWeights.lexical },
          { ranked: near, weight: hybridWeights.semantic },
        ])
      : near;
    const count = lex ? lex.count + near.filter((h) => !lexFound.has(h.id)).length : near.length;
    const page = ranked.slice(offset, offset + limit);
    const semanticOnly = near.filter((h) => !lexFound.has(h.id) && page.some((p) => p.id === h.id));
    const texts = await this.semantic.chunkTexts(caller.accountId, semanticOnly);
    const nearById = new Map<string, SemanticHit>(near.map((h) => [h.id, h]));

    const byId = new Map((await this.repo.getMany(caller.accountId, page.map((p) => p.id), null)).map((r) => [r.id, r]));
    let rows = page.map((p) => byId.get(p.id)).filter((r): r is ItemRow => r !== undefined);
    const withContent = q.include === "content";
    if (withContent) {
      rows = withinContentBudget(rows);
      await this.repo.addContents(caller.accountId, rows);
    }
    const scoreOf = new Map(page.map((p) => [p.id, p.score]));
    const items = rows.map((r) => {
      const lexical = lexFound.get(r.id);
      const hit = nearById.get(r.id)!;
      const search: ItemFound = lexical
        ? { ...lexical, score: scoreOf.get(r.id)! }
        : {
            score: scoreOf.get(r.id)!,
            // The title is chunk 0 whenever there is one; any other chunk is a window of the content.
            matchedField: hit.chunk === 0 && r.title.trim() !== "" ? "title" : "content",
            snippet: cutBytes(texts.get(r.id) ?? "", snippetBytes).text,
          };
      return { ...toItem(r, withContent), search };
    });
    const next = offset + items.length;
    return { items, limit, offset, count, nextOffset: next < count ? next : null, mode };
  }
}
