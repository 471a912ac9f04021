// What narrows an item list, shared by the items repository and the list counters.
import type { KeyScope } from "@trove/contracts";

/** What narrows a list: the caller's filters plus the key's scope. */
export interface ItemFilter {
  since?: number;
  until?: number;
  statuses?: string[];
  /** Items carrying every one of these tag slugs. */
  tagSlugs?: string[];
  /** Items in this collection (an unknown collection matches nothing: pass "" then). */
  collectionId?: string;
  /** A capture source name or a website host. */
  source?: string;
  unprocessedOnly?: boolean;
  /** Only items that have content (the feed). */
  withContent?: boolean;
  q?: string;
  /** Only these items (the search index's matches for a list's `q`, collected first), comma-separated. */
  idList?: string;
  scope?: KeyScope | null;
}
