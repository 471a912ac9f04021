// The library's save box: paste a URL and save it. A page still being read when the answer comes (the server's
// background capture) is watched until its text is in or its extraction failed, and the box says which.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { onLinkClick } from "../router.ts";

interface Saved {
  id: string;
  extracted: boolean;
  extractError?: string;
  background?: boolean;
}

interface Progress {
  text: string;
  error: boolean;
  /** The saved item, linked from the message. */
  id?: string;
  /** Still being read: the box looks again. */
  watching?: boolean;
}

// How often, and for how long, a background capture is watched; the server's own deadline ends it sooner.
const watchEveryMs = 1000;
const watchForMs = 120_000;

export function SaveBox({ onSaved }: { onSaved: () => void }) {
  const [url, setUrl] = useState("");
  const [progress, setProgress] = useState<Progress | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!progress?.watching || !progress.id) return;
    const id = progress.id;
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout>;
    const look = async () => {
      const item = await api<{ title: string; contentExtractedAt: number | null; contentExtractError: string | null }>("GET", `/api/items/${encodeURIComponent(id)}`).catch(() => null);
      if (item?.contentExtractError) {
        setProgress({ text: `Saved, but its text could not be read: ${item.contentExtractError}`, error: true, id });
        onSaved();
      } else if (item?.contentExtractedAt) {
        setProgress({ text: `Read: ${item.title || "the page"}.`, error: false, id });
        onSaved();
      } else if (Date.now() - started < watchForMs) timer = setTimeout(() => void look(), watchEveryMs);
      else setProgress({ text: "Saved; the page is still being read. It will show in the library when it is done.", error: false, id });
    };
    timer = setTimeout(() => void look(), watchEveryMs);
    return () => clearTimeout(timer);
  }, [progress?.id, progress?.watching]);

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProgress({ text: "Saving…", error: false });
    try {
      const saved = await api<Saved>("POST", "/api/ingest", { url: url.trim() });
      setProgress(
        saved.background
          ? { text: "Saved; the page is still being read…", error: false, id: saved.id, watching: true }
          : saved.extracted
            ? { text: "Saved.", error: false, id: saved.id }
            : { text: `Saved, but its text could not be read: ${saved.extractError ?? "unknown reason"}`, error: true, id: saved.id },
      );
      setUrl("");
      onSaved();
    } catch (err) {
      setProgress({ text: err instanceof ApiError ? err.message : String(err), error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="save" onSubmit={save} aria-label="Save a page">
      <label>
        Page URL
        <input type="url" name="url" required placeholder="https://…" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Save
      </button>
      {progress && (
        <p class={progress.error ? "error" : "status"} role="status" aria-busy={progress.watching === true}>
          {progress.text}
          {progress.id && !progress.watching && (
            <>
              {" "}
              <a href={`/items/${progress.id}`} onClick={(e) => onLinkClick(e, `/items/${progress.id}`)}>
                Open it
              </a>
            </>
          )}
        </p>
      )}
    </form>
  );
}
