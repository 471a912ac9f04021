// Slugs of tags and collections: one rule (contracts' tagSlug, shared with notes), so tags and collections
// name things the same way.
import { tagSlug } from "@trove/contracts";

export { tagSlug };

/** What a collection reference (an id, a name or a slug) may match: itself and the slug of it as a name. */
export function collectionRefs(ref: string): string[] {
  return [ref, tagSlug(ref)];
}
