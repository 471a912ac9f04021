// Importing an OPML file: its feeds are followed (each outline's folders become default tags on the server), and
// what was created, already followed or refused is listed with each refusal's reason.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { messageOf, StatusLine } from "./format.tsx";
import type { OpmlResult, Status } from "./types.ts";

/** The server's own limit (opmlLimits.maxBytes); checked here so a huge file is not read into the page. */
const maxOpmlBytes = 1024 * 1024;

export function OpmlImport({ onImported }: { onImported: () => void }) {
  const [result, setResult] = useState<OpmlResult | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const element = e.currentTarget as HTMLFormElement;
    const file = (element.elements.namedItem("opml") as HTMLInputElement).files?.[0];
    setResult(null);
    if (!file) return setStatus({ text: "Choose an OPML file first.", error: true });
    if (file.size > maxOpmlBytes) return setStatus({ text: "The file is larger than 1 MB; split it.", error: true });
    setBusy(true);
    setStatus({ text: "Importing…", error: false });
    try {
      const r = await api<OpmlResult>("POST", "/api/sources/import-opml", { opml: await file.text() });
      setResult(r);
      setStatus(null);
      element.reset();
      onImported();
    } catch (err) {
      setStatus({ text: messageOf(err), error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-label="Import OPML">
      <h2>Import OPML</h2>
      <form class="create-client" aria-label="Import feeds from OPML" onSubmit={(e) => void submit(e)}>
        <label>
          OPML file
          <input name="opml" type="file" required accept=".opml,.xml,text/x-opml,application/xml,text/xml" />
        </label>
        <button type="submit" disabled={busy}>
          Import
        </button>
      </form>
      <StatusLine status={status} />
      {result && (
        <div class="import-result">
          <p role="status">
            Imported: {result.counts.created} created, {result.counts.existing} already followed, {result.counts.invalid} invalid.
          </p>
          {result.invalid.length > 0 && (
            <ul aria-label="Invalid outlines">
              {result.invalid.map((o, i) => (
                <li key={i}>
                  {o.title || o.feedUrl} ({o.feedUrl}): <span class="error">{o.error}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
