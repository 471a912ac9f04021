// The reader: the item's Markdown rendered and sanitised, its original link, tags and collections edited inline,
// archive. Images from other sites load as the reading preference says (through Trove by default).
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { drawHighlights, selectionIn, type Highlight } from "../highlights.ts";
import { CollectionPicker } from "../components/CollectionPicker.tsx";
import { renderMarkdown, type ImageRewrite } from "../markdown.ts";
import { imageMode, imagePolicyFits } from "../preferences.ts";
import { navigate, onLinkClick } from "../router.ts";

interface Item {
  id: string;
  title: string;
  url: string;
  status: string;
  tags: string[];
  collectionIds: string[];
  notes: string;
  connectedNotes?: { id: string; title: string; relation: string }[];
  contentAvailable: boolean;
  contentExtractError: string | null;
}

export function Reader({ id }: { id: string }) {
  const [item, setItem] = useState<Item | null>(null);
  const [html, setHtml] = useState<string>("");
  const [error, setError] = useState<string | null>(null);
  const [highlights, setHighlights] = useState<Highlight[]>([]);
  const [picked, setPicked] = useState<{ text: string; prefix: string; suffix: string } | null>(null);
  const [note, setNote] = useState("");
  const content = useRef<HTMLElement>(null);

  const loadHighlights = () =>
    api<{ highlights: Highlight[] }>("GET", `/api/items/${encodeURIComponent(id)}/highlights?limit=100`).then((r) => setHighlights(r.highlights));

  // The article is drawn here rather than by Preact: the marks are laid over the sanitised HTML. It is drawn anew
  // only when the article or its highlights change (not for the same highlights loaded again), so its images are
  // not replaced, nor asked for again, under the reader.
  const drawn = useRef<{ html: string; marks: string } | null>(null);
  useEffect(() => {
    if (!content.current) return;
    const marks = JSON.stringify(highlights);
    if (drawn.current?.html === html && drawn.current.marks === marks) return;
    drawn.current = { html, marks };
    content.current.innerHTML = html;
    drawHighlights(content.current, highlights);
  }, [html, highlights]);

  useEffect(() => {
    // Switched to images from their sites since this page loaded: the stricter policy it set holds until a reload.
    if (!imagePolicyFits()) return void location.reload();
    let stale = false;
    Promise.all([api<Item>("GET", `/api/items/${encodeURIComponent(id)}`), api<string>("GET", `/api/items/${encodeURIComponent(id)}/content`), imageRewrite(id)])
      .then(([it, markdown, images]) => {
        if (stale) return;
        setItem(it);
        setHtml(renderMarkdown(markdown, images));
        return loadHighlights();
      })
      .catch((err) => !stale && setError(err instanceof Error ? err.message : String(err)));
    return () => void (stale = true);
  }, [id]);

  if (error) {
    return (
      <main class="reader">
        <p class="error" role="alert">
          {error}
        </p>
        <a href="/" onClick={(e) => onLinkClick(e, "/")}>
          Back to the library
        </a>
      </main>
    );
  }
  if (!item) return <main class="reader" aria-busy="true" />;

  const setTags = async (value: string) => {
    const tags = value.split(",").map((t) => t.trim()).filter(Boolean);
    const updated = await api<{ tags: string[] }>("POST", `/api/items/${encodeURIComponent(id)}`, { tags });
    setItem({ ...item, tags: updated.tags });
  };
  const saveHighlight = async (e: Event) => {
    e.preventDefault();
    if (!picked) return;
    await api("POST", `/api/items/${encodeURIComponent(id)}/highlights`, { ...picked, note: note.trim() || undefined });
    setPicked(null);
    setNote("");
    getSelection()?.removeAllRanges();
    await loadHighlights();
  };
  const setNotes = async (notes: string) => {
    await api("POST", `/api/items/${encodeURIComponent(id)}`, { notes });
    setItem({ ...item, notes });
  };
  const archive = async () => {
    await api("POST", `/api/items/${encodeURIComponent(id)}`, { archived: item.status !== "archived" });
    navigate("/");
  };

  return (
    <main class="reader">
      <header>
        <h1>{item.title || item.url}</h1>
        <p class="meta">
          <a href={item.url} target="_blank" rel="noopener noreferrer">
            {item.url}
          </a>
        </p>
        <div class="actions">
          <label>
            Tags
            <input
              name="tags"
              defaultValue={item.tags.join(", ")}
              onChange={(e) => void setTags(e.currentTarget.value)}
              placeholder="comma, separated"
            />
          </label>
          <CollectionPicker itemId={item.id} initial={item.collectionIds} />
          <button type="button" onClick={() => void archive()}>
            {item.status === "archived" ? "Unarchive" : "Archive"}
          </button>
        </div>
      </header>
      <label class="item-note">
        Your note
        <textarea name="notes" rows={2} defaultValue={item.notes} onChange={(e) => void setNotes(e.currentTarget.value)} placeholder="A note of your own on this page" />
      </label>
      {item.connectedNotes && item.connectedNotes.length > 0 && (
        <nav class="connected" aria-label="Connected notes">
          Notes on this page:{" "}
          {item.connectedNotes.map((n, i) => (
            <>
              {i > 0 && ", "}
              <a href={`/notes/${n.id}`} onClick={(e) => onLinkClick(e, `/notes/${n.id}`)}>
                {n.title}
              </a>
            </>
          ))}
        </nav>
      )}
      {item.contentExtractError && <p class="error">The page's text could not be read: {item.contentExtractError}</p>}
      <article class="content" ref={content} onMouseUp={() => setPicked(content.current ? selectionIn(content.current) : null)} onKeyUp={() => setPicked(content.current ? selectionIn(content.current) : null)} />
      {picked && (
        <form class="highlight-bar" onSubmit={(e) => void saveHighlight(e)} aria-label="New highlight">
          <span class="quote">“{picked.text.length > 80 ? `${picked.text.slice(0, 80)}…` : picked.text}”</span>
          <label>
            Note
            <input name="note" value={note} onInput={(e) => setNote(e.currentTarget.value)} placeholder="optional" />
          </label>
          <button type="submit">Highlight</button>
          <button type="button" class="secondary" onClick={() => setPicked(null)}>
            Cancel
          </button>
        </form>
      )}
      {highlights.length > 0 && (
        <section class="highlights" aria-label="Highlights">
          <h2>Highlights</h2>
          <ul>
            {highlights.map((h) => (
              <li key={h.id}>
                <q>{h.text}</q>
                {h.note && <span class="meta"> {h.note}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}

/**
 * The address as this page resolves it when it loads nothing from another site (its own origin, or data:), else
 * null. Resolved by the URL parser, as the browser will: "//host/x" and "/\host/x" are other sites.
 */
function ownAddress(src: string): string | null {
  if (/^\s*data:/i.test(src)) return src;
  try {
    const url = new URL(src, location.href);
    return url.origin === location.origin ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * How the article's images load: as they are ("direct"), not at all, or through the item's media route, which
 * fetches the images the capture recorded (GET /api/items/:id/media/:mediaId); an image it did not record is not
 * loaded.
 */
async function imageRewrite(id: string): Promise<ImageRewrite | undefined> {
  const mode = imageMode();
  if (mode === "direct") return undefined;
  if (mode === "none") return ownAddress;
  const byUrl = new Map<string, string>();
  for (let offset: number | null = 0, pages = 0; offset !== null && pages < 10; pages++) {
    const page: { media: { id: string; url: string; kind: string }[]; nextOffset: number | null } = await api(
      "GET",
      `/api/items/${encodeURIComponent(id)}/media?limit=100&offset=${offset}`,
    );
    for (const m of page.media) if (m.kind === "web") byUrl.set(m.url, `/api/items/${encodeURIComponent(id)}/media/${m.id}`);
    offset = page.nextOffset;
  }
  // The recorded address is https (libs/extract/media.ts) where the Markdown may still say http.
  return (src) => ownAddress(src) ?? byUrl.get(src) ?? byUrl.get(src.replace(/^http:/, "https:")) ?? null;
}
