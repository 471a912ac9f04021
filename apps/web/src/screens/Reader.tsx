// The reader: the item's Markdown rendered and sanitised, its original link, tags edited inline, archive.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { renderMarkdown } from "../markdown.ts";
import { navigate, onLinkClick } from "../router.ts";

interface Item {
  id: string;
  title: string;
  url: string;
  status: string;
  tags: string[];
  contentAvailable: boolean;
  contentExtractError: string | null;
}

export function Reader({ id }: { id: string }) {
  const [item, setItem] = useState<Item | null>(null);
  const [html, setHtml] = useState<string>("");
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    Promise.all([api<Item>("GET", `/api/items/${encodeURIComponent(id)}`), api<string>("GET", `/api/items/${encodeURIComponent(id)}/content`)])
      .then(([it, markdown]) => {
        if (stale) return;
        setItem(it);
        setHtml(renderMarkdown(markdown));
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
          <button type="button" onClick={() => void archive()}>
            {item.status === "archived" ? "Unarchive" : "Archive"}
          </button>
        </div>
      </header>
      {item.contentExtractError && <p class="error">The page's text could not be read: {item.contentExtractError}</p>}
      <article class="content" dangerouslySetInnerHTML={{ __html: html }} />
    </main>
  );
}
