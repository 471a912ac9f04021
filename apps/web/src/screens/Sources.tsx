// Settings: sources. Add an RSS feed by its URL (or a site's, where the feed is found), see each source's state,
// pause and resume it, read its recent events, and download every feed as OPML.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";

interface Source {
  id: string;
  type: string;
  name: string;
  status: "syncing" | "paused";
  lastSuccessAt: number | null;
  lastError: string | null;
}

interface SourceEvent {
  id?: string;
  type?: string;
  kind?: string;
  message?: string;
  at?: number;
  createdAt?: number;
}

export function Sources() {
  const [sources, setSources] = useState<Source[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);

  const load = () => api<{ sources: Source[] }>("GET", "/api/sources?limit=100").then((r) => setSources(r.sources));
  useEffect(() => void load(), []);

  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
      await load();
    } catch (err) {
      setStatus({ text: err instanceof ApiError ? err.message : String(err), error: true });
    }
  };

  const add = (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const form = new FormData(element);
    setStatus({ text: "Adding…", error: false });
    void act(async () => {
      const given = String(form.get("feed") ?? "").trim();
      const backfill = form.get("backfill") === "on" ? { backfillMode: "articles", backfillItems: 10 } : { backfillMode: "from_now" };
      type Created = { source: Source; existing?: boolean };
      // The address of a feed, else a site whose page names its feed.
      const res = await api<Created>("POST", "/api/sources", { type: "rss", feedUrl: given, ...backfill }).catch((err) => {
        if (err instanceof ApiError && err.code === "feed_not_found") return api<Created>("POST", "/api/sources", { type: "rss", input: given, ...backfill });
        throw err;
      });
      setStatus({ text: res.existing ? `${res.source.name} was already a source.` : `Added ${res.source.name}.`, error: false });
      element.reset();
    });
  };

  return (
    <main class="settings">
      <h1>Sources</h1>
      <p class="meta">
        Feeds Trove reads for you; what they publish is saved to the library. <a href="/api/sources/export-opml">Download all feeds as OPML</a>
      </p>
      <form class="create-client" onSubmit={add} aria-label="New feed">
        <label>
          Feed or site
          <input name="feed" type="url" required placeholder="https://example.com/feed.xml" />
        </label>
        <label class="inline">
          <input type="checkbox" name="backfill" defaultChecked /> with its 10 newest entries
        </label>
        <button type="submit">Add</button>
      </form>
      {status && (
        <p class={status.error ? "error" : "status"} role="status">
          {status.text}
        </p>
      )}
      {sources && sources.length === 0 && <p class="empty">No sources.</p>}
      <ul class="clients">
        {(sources ?? []).map((s) => (
          <li key={s.id} aria-label={`Source ${s.name}`}>
            <span class="name">{s.name}</span>
            <span class="meta">
              {s.type} · {s.status}
              {s.lastError ? ` · ${s.lastError}` : s.lastSuccessAt ? ` · read ${new Date(s.lastSuccessAt * 1000).toLocaleString()}` : ""}
            </span>
            <button type="button" class="secondary" onClick={() => void act(() => api("POST", `/api/sources/${s.id}/${s.status === "paused" ? "resume" : "pause"}`, {}))}>
              {s.status === "paused" ? "Resume" : "Pause"}
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(open === s.id ? null : s.id)} aria-expanded={open === s.id}>
              Events
            </button>
            {open === s.id && <Events id={s.id} />}
          </li>
        ))}
      </ul>
    </main>
  );
}

function Events({ id }: { id: string }) {
  const [events, setEvents] = useState<SourceEvent[] | null>(null);
  useEffect(() => {
    api<{ events: SourceEvent[] }>("GET", `/api/sources/${id}/events?limit=20`).then((r) => setEvents(r.events));
  }, [id]);
  if (!events) return <p aria-busy="true">Loading…</p>;
  return (
    <ul class="events" aria-label="Events">
      {events.length === 0 && <li>No events yet.</li>}
      {events.map((e, i) => (
        <li key={e.id ?? i}>
          {e.type ?? e.kind} {e.message ? `: ${e.message}` : ""}
        </li>
      ))}
    </ul>
  );
}
