// Notes search by meaning: `mode=semantic` and `mode=hybrid` for GET /api/notes/search and the notes half of
// GET /api/search, under the notes' filters. The vectors are kept by the `embed-notes` consumer, never on the
// request path. See docs/decisions.md, "Embeddings".
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { fuseRanks, hybridWeights, maxSemanticDocs, type SemanticSearch } from "@trove/search";
import type { NoteFilters, NotesRepository } from "./notes.repository.ts";
import { indexedBodyChars, type NoteFound, type SearchModeName } from "./search-shapes.ts";
type Page = { limit: number; offset: number };
type Found = { found: NoteFound[]; count: number };

export class SemanticNoteSearch {
  constructor(
    private readonly semantic: SemanticSearch | undefined,
    private readonly repo: NotesRepository,
  ) {}

  /**
   * Serves `semantic` and `hybrid`; undefined when hybrid cannot use vectors (semantic off or failing), so the
   * caller serves lexical and says so. `lexical` finds a window of lexical results.
   */
  async find(caller: Caller, q: string, mode: SearchModeName, filters: NoteFilters, page: Page, lexical: (p: Page) => Promise<Found>) {
    if (mode === "lexical") return undefined;
    if (!this.semantic) {
      if (mode === "semantic") throw new AppError("semantic_unavailable", "semantic search is off on this server (TROVE_SEMANTIC=off); use mode=lexical or hybrid");
      return undefined;
    }
    const window = page.offset + page.limit;
    // The lexical list runs while the query is embedded on the pool.
    const lexicalWindow = mode === "hybrid" ? lexical({ limit: window, offset: 0 }) : undefined;
    lexicalWindow?.catch(() => {}); // awaited below, or dropped when the query cannot be embedded
    let query: Float32Array;
    try {
      query = await this.semantic.embedQuery(q);
    } catch (err) {
      if (mode === "hybrid") return undefined;
      throw err;
    }
    const [near, lex] = await Promise.all([
      this.semantic.nearest(caller.accountId, query, Math.min(window + 1, maxSemanticDocs), this.repo.filteredIds(caller.accountId, filters)),
      lexicalWindow,
    ]);
    const lexFound = new Map((lex?.found ?? []).map((f) => [f.source.id, f]));
    const ranked = lex
      ? fuseRanks([
          { ranked: lex.found.map((f) => ({ id: f.source.id })), weight: hybridWeights.lexical },
          { ranked: near, weight: hybridWeights.semantic },
        ])
      : near;
    const count = lex ? lex.count + near.filter((h) => !lexFound.has(h.id)).length : near.length;
    const pageIds = ranked.slice(page.offset, window);
    const semanticOnly = near.filter((h) => !lexFound.has(h.id) && pageIds.some((p) => p.id === h.id));
    const texts = await this.semantic.chunkTexts(caller.accountId, semanticOnly);
    const sources = new Map((await this.repo.searchSources(semanticOnly.map((h) => h.id), indexedBodyChars)).map((s) => [s.id, s]));
    const revisions = new Map((await this.repo.revisionsOf(caller.accountId, semanticOnly.map((h) => h.id))).map((n) => [n.id, n.current_revision]));
    const byId = new Map(semanticOnly.map((h) => [h.id, h]));
    const found = pageIds.flatMap(({ id, score }): NoteFound[] => {
      const lexical = lexFound.get(id);
      if (lexical) return [{ ...lexical, score }];
      const source = sources.get(id);
      const hit = byId.get(id);
      if (!source || !hit) return [];
      // The title is chunk 0 whenever there is one; any other chunk is a window of the body.
      const matchedField = hit.chunk === 0 && source.title.trim() !== "" ? "title" : "body";
      return [{ source, revision: revisions.get(id) ?? 0, score, matchedField, lines: { ranges: [], count: 0 }, terms: [], chunkText: texts.get(id) ?? "" }];
    });
    return { found, count, mode };
  }
}
