// Which items a key or a webhook covers: every item, items carrying any of some tags, or one collection. The
// fields live inside the caller's form; scopeOf reads them back into the API's scope (exactly one of the two).
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";

interface Collection {
  id: string;
  name: string;
}

export type Scope = { tagSlugs: string[] } | { collectionId: string };

export function ScopeFields() {
  const [kind, setKind] = useState<"all" | "tags" | "collection">("all");
  const [collections, setCollections] = useState<Collection[] | null>(null);
  // The select is left to the browser (not controlled): the choice stays in the DOM whatever re-renders.
  const select = useRef<HTMLSelectElement>(null);
  // The form's reset (after a create) puts the choice back to every item.
  useEffect(() => {
    const form = select.current?.form;
    const reset = () => setKind("all");
    form?.addEventListener("reset", reset);
    return () => form?.removeEventListener("reset", reset);
  }, []);
  useEffect(() => {
    if (kind === "collection" && !collections) void api<{ collections: Collection[] }>("GET", "/api/collections").then((r) => setCollections(r.collections));
  }, [kind]);
  return (
    <>
      <label>
        Items
        <select name="scope" ref={select} defaultValue="all" onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
          <option value="all">All items</option>
          <option value="tags">Items with some tags</option>
          <option value="collection">Items in a collection</option>
        </select>
      </label>
      {kind === "tags" && (
        <label>
          Tags
          <input name="scopeTags" required placeholder="tag, another" />
        </label>
      )}
      {kind === "collection" && (
        <label>
          Collection
          <select name="scopeCollection" required>
            {(collections ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}

/**
 * The scope the form's fields name, or undefined for every item. Tags are sent as slugs (webhooks take only
 * slugs): a name the library knows becomes its slug; another is folded as the server would fold a Latin name.
 */
export async function scopeOf(form: FormData): Promise<Scope | undefined> {
  if (form.get("scope") === "tags") {
    const names = String(form.get("scopeTags") ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    if (names.length === 0) return undefined;
    const { tags } = await api<{ tags: { name: string; slug: string }[] }>("GET", "/api/tags");
    const known = new Map(tags.flatMap((t) => [[t.name.toLowerCase(), t.slug], [t.slug, t.slug]] as const));
    const fold = (name: string) => name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    return { tagSlugs: names.map((n) => known.get(n.toLowerCase()) ?? fold(n)) };
  }
  if (form.get("scope") === "collection" && form.get("scopeCollection")) return { collectionId: String(form.get("scopeCollection")) };
  return undefined;
}

/** A scope in words, for the lists. */
export function describeScope(scope: { tagSlugs?: string[]; collectionId?: string } | null, collections: Collection[]): string {
  if (scope?.tagSlugs) return `tagged ${scope.tagSlugs.join(", ")}`;
  if (scope?.collectionId) return `in ${collections.find((c) => c.id === scope.collectionId)?.name ?? "a collection"}`;
  return "all items";
}

/** The account's collections, for describeScope. */
export function useCollections(): Collection[] {
  const [collections, setCollections] = useState<Collection[]>([]);
  useEffect(() => void api<{ collections: Collection[] }>("GET", "/api/collections").then((r) => setCollections(r.collections)), []);
  return collections;
}
