// What items search shares between its lexical (search.service.ts) and semantic (semantic-search.service.ts) halves:
// the request, the indexed and snippet sizes, and the content budget of a page.
import { contentPageBytes } from "@trove/contracts";
import type { ItemRow } from "./items.repository.ts";
import type { ListQuery } from "./items.service.ts";

/** Markdown indexed per item: the first 256 KB (a long book is found by its opening, its title and tags). */
export const indexedContentBytes = 256 * 1024;
export const snippetBytes = 600;

export interface SearchQuery extends ListQuery {
  q: string;
  mode?: "lexical" | "semantic" | "hybrid";
  include?: "content";
}

/** The leading rows whose Markdown fits the page budget together (the first always does): a page with content. */
export function withinContentBudget(rows: ItemRow[]): ItemRow[] {
  let used = 0;
  let fit = 0;
  while (fit < rows.length && (fit === 0 || used + rows[fit]!.content_size <= contentPageBytes)) used += rows[fit++]!.content_size;
  return rows.slice(0, fit);
}
