// An item's collections, edited in place: tick the ones it belongs to, or name a new one (created, or found when
// the name exists) and put the item in it. Every change sends the whole membership (collectionIds, exactly).
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { Alert } from "./Alert.tsx";

interface Collection {
  id: string;
  name: string;
}

export function CollectionPicker({ itemId, initial }: { itemId: string; initial: string[] }) {
  const [all, setAll] = useState<Collection[] | null>(null);
  const [ids, setIds] = useState<string[]>(initial);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<{ collections: Collection[] }>("GET", "/api/collections").then((r) => setAll(r.collections));
  useEffect(() => void load(), []);

  // One change at a time: each sends the whole membership, so a second one must start from the first's answer.
  // The boxes show the change at once and go back if the server refuses it.
  const [saving, setSaving] = useState(false);
  const save = async (next: string[]) => {
    const before = ids;
    setIds(next);
    setSaving(true);
    try {
      const updated = await api<{ collectionIds: string[] }>("POST", `/api/items/${encodeURIComponent(itemId)}`, { collectionIds: next });
      setIds(updated.collectionIds);
      setError(null);
    } catch (err) {
      setIds(before);
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };
  const add = async (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(element).get("collection") ?? "").trim();
    if (!name) return;
    try {
      const { collection } = await api<{ collection: Collection }>("POST", "/api/collections", { name });
      await load();
      if (!ids.includes(collection.id)) await save([...ids, collection.id]);
      element.reset();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };

  const names = (all ?? []).filter((c) => ids.includes(c.id)).map((c) => c.name);
  return (
    <details class="collections">
      <summary>Collections: {names.length > 0 ? names.join(", ") : "none"}</summary>
      <fieldset>
        <legend>In these collections</legend>
        {all?.length === 0 && <p class="meta">No collections yet.</p>}
        {(all ?? []).map((c) => (
          <label key={c.id} class="inline">
            <input
              type="checkbox"
              checked={ids.includes(c.id)}
              disabled={saving}
              onChange={(e) => void save(e.currentTarget.checked ? [...ids, c.id] : ids.filter((id) => id !== c.id))}
            />
            {c.name}
          </label>
        ))}
      </fieldset>
      <form onSubmit={(e) => void add(e)} aria-label="Add a collection">
        <label>
          New collection
          <input name="collection" maxLength={200} placeholder="e.g. To cite" />
        </label>
        <button type="submit">Add</button>
      </form>
      <Alert text={error} />
    </details>
  );
}
