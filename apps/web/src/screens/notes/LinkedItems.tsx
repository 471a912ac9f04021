// The note's linked items: each attached library item with its relation and annotation, and a form to find an item
// (the search follows the typing) and attach it, or remove a link. Titles of items that cannot be read say so.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { onLinkClick } from "../../router.ts";
import { relations, type ItemLink, type Relation } from "./types.ts";

interface ItemSummary {
  id: string;
  title: string;
  url: string;
}

const itemLabel = (i: ItemSummary) => i.title || i.url;

/** The note's linked items, and a form to find an item and attach it. */
export function LinkedItems({ noteId, links, onChanged }: { noteId: string; links: ItemLink[]; onChanged: () => Promise<unknown> }) {
  const base = `/api/notes/${encodeURIComponent(noteId)}/item-links`;
  // Item titles by id; absent while unknown, false when the item cannot be read (deleted, or out of the key's scope).
  const [items, setItems] = useState<Record<string, ItemSummary | false>>({});
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [q, setQ] = useState("");
  const [results, setResults] = useState<ItemSummary[] | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const [relation, setRelation] = useState<Relation>("source");
  const [annotation, setAnnotation] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    for (const link of links) {
      if (link.itemId in items) continue;
      api<ItemSummary>("GET", `/api/items/${encodeURIComponent(link.itemId)}`).then(
        (i) => setItems((m) => ({ ...m, [link.itemId]: { id: i.id, title: i.title, url: i.url } })),
        () => setItems((m) => ({ ...m, [link.itemId]: false })),
      );
    }
  }, [links]);

  // The search follows the typing, a moment after it stops (Enter searches at once); only the latest answer shows.
  const asked = useRef(0);
  const search = (words: string) => {
    const n = ++asked.current;
    if (!words) return setResults(null);
    api<{ items: ItemSummary[] }>("GET", `/api/items/search?${new URLSearchParams({ q: words, limit: "10" })}`).then(
      (r) => n === asked.current && setResults(r.items),
      (e) => n === asked.current && setMessage({ text: e instanceof Error ? e.message : String(e), error: true }),
    );
  };
  useEffect(() => {
    const timer = setTimeout(() => search(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);

  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      const text = await what();
      await onChanged();
      setMessage({ text, error: false });
    } catch (err) {
      setMessage({ text: err instanceof Error ? err.message : String(err), error: true });
    } finally {
      setBusy(false);
    }
  };
  const attach = () =>
    run(async () => {
      const res = await api<{ existing: boolean }>("POST", base, { itemId: picked, relation, annotation: annotation.trim() || undefined });
      if (res.existing) return "That item is already attached.";
      setPicked(null);
      setAnnotation("");
      return "Attached.";
    });
  const remove = (link: ItemLink) =>
    run(async () => {
      await api("DELETE", `${base}/${encodeURIComponent(link.id)}`);
      return "Removed.";
    });

  return (
    <section class="item-links" aria-label="Linked items">
      <h2>Linked items</h2>
      {links.length === 0 ? (
        <p class="empty">No items attached.</p>
      ) : (
        <ul class="items">
          {links.map((link) => {
            const item = items[link.itemId];
            const name = item ? itemLabel(item) : item === false ? "An item that is no longer available" : "…";
            return (
              <li key={link.id}>
                <a href={`/items/${link.itemId}`} onClick={(e) => onLinkClick(e, `/items/${link.itemId}`)}>
                  {name}
                </a>
                <span class="meta">
                  {link.relation}
                  {link.annotation && ` · ${link.annotation}`}
                </span>
                <button type="button" class="secondary" disabled={busy} aria-label={`Remove ${name}`} onClick={() => void remove(link)}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <form
        class="attach"
        aria-label="Attach an item"
        onSubmit={(e) => {
          e.preventDefault();
          if (picked) void attach();
        }}
      >
        <h3>Attach an item</h3>
        <label>
          Find an item
          <input
            type="search"
            name="item-q"
            value={q}
            placeholder="Words in titles, text, tags"
            onInput={(e) => setQ(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter searches now rather than attaching.
              if (e.key === "Enter") {
                e.preventDefault();
                search(q.trim());
              }
            }}
          />
        </label>
        {results &&
          (results.length === 0 ? (
            <p class="empty">No items match.</p>
          ) : (
            <fieldset class="results">
              <legend>Pick one</legend>
              {results.map((r) => (
                <label key={r.id} class="inline">
                  <input type="radio" name="item" value={r.id} checked={picked === r.id} onChange={() => setPicked(r.id)} />
                  {itemLabel(r)}
                </label>
              ))}
            </fieldset>
          ))}
        <div class="attach-fields">
          <label>
            Relation
            <select name="relation" value={relation} onChange={(e) => setRelation(e.currentTarget.value as Relation)}>
              {relations.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label class="wide">
            Annotation
            <input name="annotation" value={annotation} placeholder="optional: why it is here" onInput={(e) => setAnnotation(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={!picked || busy}>
            Attach
          </button>
        </div>
        {message && (
          <p class={message.error ? "error" : "status"} role={message.error ? "alert" : "status"}>
            {message.text}
          </p>
        )}
      </form>
    </section>
  );
}
