// The tags a new item of a source gets: the source's default tags, then those of every smart tag rule whose text
// occurs in its field (case and accents ignored; plain substring, never a pattern: bounded time per entry).
import type { FeedEntry } from "@trove/feeds";
import type { SourceSettings } from "./sources.repository.ts";

/** Lower case without accents (NFKD, combining marks dropped). */
const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** HTML as searchable text (tags dropped); entries' content is capped by @trove/feeds. */
const textOf = (html: string) => html.replace(/<[^>]*>/g, " ");

export function tagsFor(entry: Pick<FeedEntry, "title" | "url" | "author" | "html">, settings: SourceSettings): string[] {
  const fields = {
    title: fold(entry.title),
    url: fold(entry.url ?? ""),
    author: fold(entry.author ?? ""),
    content: settings.smartTagRules.length > 0 ? fold(textOf(entry.html)) : "",
  };
  const tags = [...settings.defaultTags];
  for (const rule of settings.smartTagRules) {
    const needle = fold(rule.contains);
    const hit = rule.field === "any" ? Object.values(fields).some((v) => v.includes(needle)) : fields[rule.field].includes(needle);
    if (hit) tags.push(...rule.tags);
  }
  const out: string[] = [];
  for (const t of tags) if (!out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
  return out;
}
