// Settings: sources. Add an RSS feed (by its URL, or a site's where the feed is found), a YouTube channel, an X
// account's articles or an email inbox; see each source's state; pause, resume or delete it; change its settings
// and smart tag rules; read its events, and an inbox's mail and the confirmation a provider sent to it; follow the
// feeds of an OPML file, and download every feed as OPML. This module is the screen: the list, and the one status
// line every change reports to; each form and panel lives in its own module beside it.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { AddSource } from "./AddSource.tsx";
import { messageOf, StatusLine } from "./format.tsx";
import { OpmlImport } from "./OpmlImport.tsx";
import { SourceRow } from "./SourceRow.tsx";
import type { Source, Status } from "./types.ts";
import "./Sources.css";

export function Sources() {
  const [sources, setSources] = useState<Source[] | null>(null);
  const [status, setStatus] = useState<Status>(null);

  const load = () =>
    api<{ sources: Source[] }>("GET", "/api/sources?limit=1000").then(
      (r) => setSources(r.sources),
      (err) => setStatus({ text: messageOf(err), error: true }),
    );
  useEffect(() => void load(), []);

  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      setStatus({ text: messageOf(err), error: true });
    }
    await load();
  };

  return (
    <main class="settings sources">
      <h1>Sources</h1>
      <p class="meta">
        Feeds, channels and inboxes Trove reads for you; what they publish is saved to the library.{" "}
        <a href="/api/sources/export-opml">Download all feeds as OPML</a>
      </p>
      <AddSource act={act} onStatus={setStatus} />
      <StatusLine status={status} />
      <OpmlImport onImported={() => void load()} />
      <h2>Your sources</h2>
      {!sources && <p aria-busy="true">Loading…</p>}
      {sources && sources.length === 0 && <p class="empty">No sources.</p>}
      <ul class="clients">
        {(sources ?? []).map((s) => (
          <SourceRow key={s.id} source={s} act={act} onStatus={setStatus} reload={() => void load()} />
        ))}
      </ul>
    </main>
  );
}
