// Tag and collection slugs: lowercase ASCII, accents folded, words joined by "-". Stable once made.
import { createHash } from "node:crypto";

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // combining marks left by NFKD: é -> e
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
}

/** The slug of a tag name, for items and notes alike; names with no Latin letters or digits get a short stable hash. */
export function tagSlug(name: string): string {
  const slug = slugify(name);
  return slug || `tag-${createHash("sha256").update(name.trim().toLowerCase()).digest("hex").slice(0, 8)}`;
}
