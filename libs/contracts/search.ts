// Search over items: GET /api/items/search (see docs/decisions.md, "Search").
import { t } from "elysia";
import { op } from "./operation.ts";
import { Count, Int4, Item, Limit, ListFilters } from "./schemas.ts";

/** Markdown GET /api/search?include=content carries at most, shared fairly across the results. */
export const crossSearchContentBytes = 256 * 1024;

export const searchModes = ["lexical", "semantic", "hybrid"] as const;

/** The `mode` query parameter of every search route. */
export const SearchMode = t.Optional(
  t.Union(searchModes.map((m) => t.Literal(m)), {
    description:
      "default hybrid: lexical and semantic ranks fused (reciprocal rank, k 60, equal weights); semantic: nearest by meaning (cosine >= 0.25, at most 1,000 results). When semantic search cannot be served (TROVE_SEMANTIC=off, the model or the vector index unavailable) semantic answers 503 semantic_unavailable and hybrid serves lexical (the response's mode says which)",
  }),
);
/** The mode a search response says it served. */
export const ServedMode = t.Union(searchModes.map((m) => t.Literal(m)), { description: "the mode actually served" });

const SearchedItem = t.Object({
  ...Item.properties,
  search: t.Object({
    score: t.Number({ description: "higher is better; comparable within one response only" }),
    matchedField: t.Union(["title", "tags", "notes", "url", "content"].map((f) => t.Literal(f))),
    snippet: t.String({ description: "at most 600 UTF-8 bytes of the matched field around the match, never cut inside a character" }),
  }),
});

export const searchOperations = {
  searchItems: op({
    method: "GET",
    path: "/api/items/search",
    service: "items",
    permission: "items.read",
    tag: "Search",
    summary: "Search items by title, URL, tags, the user's notes and content",
    query: t.Object({
      q: t.String({
        minLength: 1,
        maxLength: 500,
        description: 'required; words are ANDed, "quoted phrases", OR, -exclusion; the last word also matches as a prefix; typos in titles and URLs are tolerated when few items match exactly',
      }),
      mode: SearchMode,
      ...ListFilters,
    }),
    response: t.Object({
      items: t.Array(SearchedItem),
      limit: Int4(),
      offset: Int4(),
      count: Count({ description: "items matching, on every page (lexical); semantic: the items found by meaning up to this page and one more; hybrid: lexical matches plus the items found only by meaning" }),
      nextOffset: t.Nullable(Int4({ description: "the offset of the next page, null on the last one" })),
      mode: ServedMode,
    }),
  }),
  search: op({
    method: "GET",
    path: "/api/search",
    service: "notes",
    permission: "items.read",
    tag: "Search",
    summary: "Search items and notes together, best first (items and notes ranks fused); compact results with snippets",
    query: t.Object({
      q: t.String({ minLength: 1, maxLength: 500, description: 'required; the syntax of the items and notes searches ("phrases", OR, -exclusion, prefix)' }),
      types: t.Optional(t.String({ maxLength: 40, pattern: "^(item|note)(,(item|note))*$", description: "comma list of item, note; default both (notes only for keys holding notes.read)" })),
      mode: SearchMode,
      project: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "a project id or a repository address: its notes rank higher" })),
      path: t.Optional(t.String({ minLength: 1, maxLength: 1000, description: "a repository path: notes about it (or its folders) rank higher" })),
      exactProject: t.Optional(t.Boolean({ description: "only notes of `project` (items have no project, so none come)" })),
      exactPath: t.Optional(t.Boolean({ description: "only notes about `path` or its folders (no items)" })),
      kind: t.Optional(t.String({ minLength: 1, maxLength: 80, description: "note filter" })),
      state: t.Optional(t.String({ minLength: 1, maxLength: 80, description: "note filter" })),
      tags: t.Optional(t.String({ maxLength: 4096, description: "note filter: comma-separated tag names or slugs, any of them" })),
      include: t.Optional(t.Literal("content", { description: `adds each result's Markdown, sharing ${crossSearchContentBytes / 1024} KB fairly across the results` })),
      limit: t.Optional(Limit(100, 20)),
    }),
    response: t.Object({
      results: t.Array(
        t.Object({
          type: t.Union([t.Literal("item"), t.Literal("note")]),
          id: t.String(),
          title: t.String(),
          snippet: t.String({ description: "at most 600 UTF-8 bytes around the match, never cut inside a character" }),
          matchedField: t.String(),
          score: t.Number({ description: "fused rank score, higher is better; comparable within one response only" }),
          revision: t.Optional(Int4({ description: "notes: the current revision" })),
          lineRange: t.Optional(t.Object({ startLine: Int4(), endLine: Int4() }, { description: "notes: the first lines that match (read them with view=lines)" })),
          content: t.Optional(t.String({ description: "with include=content: the Markdown, or its start when contentTruncated" })),
          contentTruncated: t.Optional(t.Boolean()),
        }),
      ),
      count: Count({ description: "items and notes matching in all" }),
      mode: ServedMode,
      truncated: t.Boolean({ description: "true when a result's content was cut to fit the budget" }),
    }),
  }),
} as const;
