// The library: save a URL, search, filter (status, tags, collection, source, dates), and the items newest first;
// an item opens in the reader. The filters live in the address, so a filtered view can be bookmarked and the back
// button undoes a filter.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { SaveBox } from "../components/SaveBox.tsx";
import { navigate, onLinkClick } from "../router.ts";
import { Alert } from "../components/Alert.tsx";

interface Item {
  id: string;
  title: string;
  url: string;
  status: string;
  tags: string[];
  createdAt: number;
  contentExtractError: string | null;
}

const filterKeys = ["q", "mode", "status", "tags", "collection", "source", "since", "until"] as const;
type FilterKey = (typeof filterKeys)[number];

// Items per request; "More" asks for the next page.
const PAGE = 100;

/** How a search matches (the API's mode); empty is the API's default, hybrid. */
const modes = [
  { value: "", label: "Words and meaning" },
  { value: "lexical", label: "Exact words" },
  { value: "semantic", label: "Meaning" },
];

const statuses = [
  { value: "", label: "Unread and flagged" },
  { value: "archived", label: "Archived" },
  { value: "stashed,flagged,archived", label: "Everything" },
];

export function Library({ query }: { query: URLSearchParams }) {
  const q = query.get("q") ?? "";
  const status = query.get("status") ?? "";
  const filters = Object.fromEntries(filterKeys.map((k) => [k, query.get(k) ?? ""])) as Record<FilterKey, string>;
  const [collections, setCollections] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    api<{ collections: { id: string; name: string }[] }>("GET", "/api/collections").then((r) => setCollections(r.collections), () => {});
  }, []);
  const [items, setItems] = useState<Item[] | null>(null);
  const [count, setCount] = useState(0);
  const [served, setServed] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  // One page of the list from `offset`: the first replaces what is shown, the next ones ("More") add to it.
  const fetchPage = (offset: number) => {
    const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    for (const k of filterKeys) if (filters[k]) params.set(k, filters[k]);
    if (!q) params.delete("mode");
    return api<{ items: Item[]; count: number; mode?: string }>("GET", `${q ? "/api/items/search" : "/api/items"}?${params}`);
  };
  useEffect(() => {
    let stale = false;
    fetchPage(0)
      .then((page) => {
        if (stale) return;
        setItems(page.items);
        setCount(page.count);
        setServed(page.mode ?? null);
        setSelected(new Set());
        setError(null);
      })
      .catch((err) => {
        if (stale) return;
        // What was listed before no longer answers the address: show the reason, not the old list.
        setItems([]);
        setCount(0);
        setError(err instanceof Error ? err.message : String(err));
      });
    return () => void (stale = true);
  }, [query.toString(), reload]);
  const more = async () => {
    const page = await fetchPage(items?.length ?? 0);
    setItems([...(items ?? []), ...page.items]);
    setCount(page.count);
  };

  const go = (next: Partial<Record<FilterKey, string>>) => {
    const params = new URLSearchParams();
    for (const k of filterKeys) {
      const v = (next[k] ?? filters[k]).trim();
      if (v) params.set(k, v);
    }
    navigate(params.size ? `/?${params}` : "/");
  };

  return (
    <main class="library">
      <SaveBox onSaved={() => setReload((n) => n + 1)} />
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          go(Object.fromEntries(filterKeys.filter((k) => k !== "status" && k !== "mode").map((k) => [k, String(form.get(k) ?? "")])));
        }}
      >
        <label>
          Search
          <input type="search" name="q" defaultValue={q} placeholder="Words in titles, text, notes, tags" />
        </label>
        <label>
          Match
          <select value={filters.mode} onChange={(e) => go({ mode: e.currentTarget.value })}>
            {modes.map((m) => (
              <option value={m.value}>{m.label}</option>
            ))}
          </select>
        </label>
        <label>
          Show
          <select value={status} onChange={(e) => go({ status: e.currentTarget.value })}>
            {statuses.map((s) => (
              <option value={s.value}>{s.label}</option>
            ))}
          </select>
        </label>
        <details class="more-filters" open={filterKeys.some((k) => k !== "q" && k !== "status" && k !== "mode" && filters[k])}>
          <summary>More filters</summary>
          <label>
            Tags
            <input name="tags" defaultValue={filters.tags} placeholder="any of: tag, another" />
          </label>
          <label>
            Collection
            <select name="collection" defaultValue={filters.collection}>
              <option value="">Any</option>
              {collections.map((c) => (
                <option value={c.id}>{c.name}</option>
              ))}
            </select>
          </label>
          <label>
            Source
            <input name="source" defaultValue={filters.source} placeholder="a website or capture source" />
          </label>
          <label>
            Saved since
            <input type="date" name="since" defaultValue={filters.since} />
          </label>
          <label>
            Saved before
            <input type="date" name="until" defaultValue={filters.until} />
          </label>
          <button type="submit">Apply</button>
        </details>
      </form>
      <Alert text={error} />
      {items === null ? (
        <p aria-busy="true">Loading…</p>
      ) : items.length === 0 ? (
        <p class="empty">{filterKeys.some((k) => filters[k]) ? "Nothing matches." : "Nothing saved yet: paste a URL above."}</p>
      ) : (
        <>
          <p class="count">
            {count} items
            {q && filters.mode !== "lexical" && served === "lexical" && " · matched by words only: search by meaning is not available on this Trove"}
          </p>
          {selected.size > 0 && <BulkBar ids={[...selected]} onDone={() => setReload((n) => n + 1)} />}
          <ul class="items">
            {items.map((item) => (
              <li key={item.id}>
                <input
                  type="checkbox"
                  class="pick"
                  aria-label={`Select ${item.title || item.url}`}
                  checked={selected.has(item.id)}
                  onChange={(e) => {
                    const next = new Set(selected);
                    if (e.currentTarget.checked) next.add(item.id);
                    else next.delete(item.id);
                    setSelected(next);
                  }}
                />
                <a href={`/items/${item.id}`} onClick={(e) => onLinkClick(e, `/items/${item.id}`)}>
                  {item.title || item.url}
                </a>
                <span class="meta">
                  {hostOf(item.url)}
                  {item.tags.length > 0 && ` · ${item.tags.join(", ")}`}
                  {item.contentExtractError && " · text not extracted"}
                </span>
              </li>
            ))}
          </ul>
          {items.length < count && (
            <button type="button" class="secondary more" onClick={() => void more()}>
              More ({count - items.length} left)
            </button>
          )}
        </>
      )}
    </main>
  );
}

// What to do with the selected items: archive, mark processed, add a tag, delete (after a confirmation).
function BulkBar({ ids, onDone }: { ids: string[]; onDone: () => void }) {
  const [tag, setTag] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const run = async (what: () => Promise<unknown>) => {
    try {
      await what();
      onDone();
    } catch (err) {
      setMessage(err instanceof ApiError ? err.message : String(err));
    }
  };
  const addTag = () =>
    run(() =>
      Promise.all(
        ids.map(async (id) => {
          const item = await api<{ tags: string[] }>("GET", `/api/items/${id}`);
          await api("POST", `/api/items/${id}`, { tags: [...new Set([...item.tags, tag.trim()])] });
        }),
      ),
    );
  return (
    <div class="bulk" role="toolbar" aria-label="Selected items">
      <span>{ids.length} selected</span>
      <button type="button" class="secondary" onClick={() => void run(() => api("POST", "/api/items/archive", { ids }))}>
        Archive
      </button>
      <button type="button" class="secondary" onClick={() => void run(() => api("POST", "/api/items/mark-processed", { ids }))}>
        Mark processed
      </button>
      <label class="inline">
        <input name="bulk-tag" placeholder="tag" value={tag} onInput={(e) => setTag(e.currentTarget.value)} aria-label="Tag to add" />
      </label>
      <button type="button" class="secondary" disabled={!tag.trim()} onClick={() => void addTag()}>
        Add tag
      </button>
      <button type="button" class="secondary" onClick={() => confirm(`Delete ${ids.length} items for good?`) && void run(() => api("POST", "/api/items/delete", { ids }))}>
        Delete
      </button>
      {message && (
        <span class="error" role="alert">
          {message}
        </span>
      )}
    </div>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
