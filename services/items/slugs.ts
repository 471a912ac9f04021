// Slugs of tags and collections: stable ASCII (contracts' slugify), or a short hash for names without Latin
// letters or digits. One module, so tags and collections name things the same way.
import { createHash } from "node:crypto";
import { slugify } from "@trove/contracts";

/** The slug of a tag or collection name; names with no Latin letters or digits get a short stable hash. */
export function tagSlug(name: string): string {
  const slug = slugify(name);
  return slug || `tag-${createHash("sha256").update(name.trim().toLowerCase()).digest("hex").slice(0, 8)}`;
}

/** What a collection reference (an id, a name or a slug) may match: itself and the slug of it as a name. */
export function collectionRefs(ref: string): string[] {
  return [ref, tagSlug(ref)];
}
