// A source's Events panel: its last 20 runs and changes, newest first as the API gives them, read once when opened.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { messageOf, plural, when } from "./format.tsx";
import type { SourceEvent } from "./types.ts";

export function Events({ id }: { id: string }) {
  const [events, setEvents] = useState<SourceEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ events: SourceEvent[] }>("GET", `/api/sources/${id}/events?limit=20`).then(
      (r) => setEvents(r.events),
      (err) => setError(messageOf(err)),
    );
  }, [id]);
  if (error) return <p class="error panel" role="alert">{error}</p>;
  if (!events) return <p aria-busy="true">Loading…</p>;
  return (
    <ul class="events panel" aria-label="Events">
      {events.length === 0 && <li>No events yet.</li>}
      {events.map((e) => (
        <li key={e.id}>
          <time>{when(e.at)}</time> {e.type}
          {e.itemsAdded > 0 ? ` (${plural(e.itemsAdded, "item")} added)` : ""}
          {e.message ? `: ${e.message}` : ""}
        </li>
      ))}
    </ul>
  );
}
