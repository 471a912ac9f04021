// Search over items: GET /api/items/search (see docs/decisions.md, "Search").
import { t } from "elysia";
import { op } from "./operation.ts";
import { Count, Int4, Item, ListFilters } from "./schemas.ts";

export const searchModes = ["lexical", "semantic", "hybrid"] as const;

/** The `mode` query parameter of every search route. */
export const SearchMode = t.Optional(
  t.Union(searchModes.map((m) => t.Literal(m)), {
    description: "default hybrid; semantic answers 503 semantic_unavailable while no embedder runs, and hybrid then serves lexical (the response's mode says which)",
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
      count: Count({ description: "items matching, on every page" }),
      nextOffset: t.Nullable(Int4({ description: "the offset of the next page, null on the last one" })),
      mode: ServedMode,
    }),
  }),
} as const;
