// rollupEnabled: a run's new entries become ONE digest item instead of one item each: its title names the source,
// the count and the day; its content lists every entry's title, link and summary; its address is Trove's own,
// stable for the same set of entries (a retried run saves the same digest again, not a second one).
import { escapeHtml, type FeedEntry } from "@trove/feeds";
import { uniqueTags, type PreparedEntry } from "@trove/intake";
import type { NewItem } from "./item-writer.ts";
import type { SourceRow } from "./sources.repository.ts";

/** The digest of entries whose tags, summaries and excerpts were read (in a worker: see PooledReading). */
export function digestOf(source: SourceRow, entries: { entry: FeedEntry; prepared: PreparedEntry }[], now: number, inboxDomain: string): NewItem {
  const day = new Date(now * 1000).toISOString().slice(0, 10);
  const n = entries.length;
  const title = `${source.name}: ${n} new ${n === 1 ? "entry" : "entries"}, ${day}`;
  const list = entries
    .map(({ entry: e, prepared: p }) => {
      const name = escapeHtml(e.title || "(untitled)");
      const heading = e.url ? `<a href="${escapeHtml(e.url)}">${name}</a>` : name;
      const text = p.summary ?? p.excerpt ?? "";
      return `<li><p><strong>${heading}</strong></p>${text ? `<p>${escapeHtml(text)}</p>` : ""}</li>`;
    })
    .join("");
  const digest = new Bun.CryptoHasher("sha256").update(entries.map(({ entry }) => entry.key).join("\n")).digest("hex").slice(0, 32);
  return {
    url: `https://${inboxDomain}/sources/${source.id}/digests/${digest}`,
    html: `<html><head><title>${escapeHtml(title)}</title></head><body><article><h1>${escapeHtml(title)}</h1><ul>${list}</ul></article></body></html>`,
    title,
    tags: uniqueTags(entries.flatMap(({ prepared }) => prepared.tags)),
    source: source.name,
  };
}
