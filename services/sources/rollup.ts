// rollupEnabled: a run's new entries become ONE digest item instead of one item each: its title names the source,
// the count and the day; its content lists every entry's title, link and summary; its address is Trove's own,
// stable for the same set of entries (a retried run saves the same digest again, not a second one).
import { escapeHtml, type FeedEntry } from "@trove/feeds";
import { stripTags } from "./mail-content.ts";
import { tagsFor } from "./smart-tags.ts";
import type { SourceRow } from "./sources.repository.ts";
import { summarize } from "./summary.ts";
import type { NewItem } from "./item-writer.ts";

/** Characters of an entry's text shown when it is too short to need a summary. */
const excerptChars = 300;

export function digestOf(source: SourceRow, entries: FeedEntry[], now: number, inboxDomain: string): NewItem {
  const day = new Date(now * 1000).toISOString().slice(0, 10);
  const n = entries.length;
  const title = `${source.name}: ${n} new ${n === 1 ? "entry" : "entries"}, ${day}`;
  const list = entries
    .map((e) => {
      const name = escapeHtml(e.title || "(untitled)");
      const heading = e.url ? `<a href="${escapeHtml(e.url)}">${name}</a>` : name;
      const text = summarize(e.html) ?? stripTags(e.html).replace(/\s+/g, " ").trim().slice(0, excerptChars);
      return `<li><p><strong>${heading}</strong></p>${text ? `<p>${escapeHtml(text)}</p>` : ""}</li>`;
    })
    .join("");
  const digest = new Bun.CryptoHasher("sha256").update(entries.map((e) => e.key).join("\n")).digest("hex").slice(0, 32);
  const tags: string[] = [];
  for (const e of entries) for (const t of tagsFor(e, source.settings)) if (!tags.some((o) => o.toLowerCase() === t.toLowerCase())) tags.push(t);
  return {
    url: `https://${inboxDomain}/sources/${source.id}/digests/${digest}`,
    html: `<html><head><title>${escapeHtml(title)}</title></head><body><article><h1>${escapeHtml(title)}</h1><ul>${list}</ul></article></body></html>`,
    title,
    tags,
    source: source.name,
  };
}
