// The tags a new item of a source gets: the source's default tags, then those of every smart tag rule whose text
// occurs in its field (case and accents ignored; plain substring, never a pattern). The content field is the
// visible text of the entry's HTML, its first `contentMatchChars` characters.
import { visibleText } from "./html-text.ts";

export interface SmartTagRule {
  field: "title" | "url" | "author" | "content" | "any";
  contains: string;
  tags: string[];
}

export interface TagSettings {
  defaultTags: string[];
  smartTagRules: SmartTagRule[];
}

export interface TaggedText {
  title: string;
  url: string | null;
  author: string | null;
  html: string;
}

/** Characters of an entry's visible text that content rules look at (a feed entry's content is capped at 500,000). */
export const contentMatchChars = 500_000;

/** Lower case without accents (NFKD, combining marks dropped), whitespace runs as single spaces. */
const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ");

export function tagsFor(entry: TaggedText, settings: TagSettings): string[] {
  const tags = [...settings.defaultTags];
  if (settings.smartTagRules.length > 0) {
    const fields = {
      title: fold(entry.title),
      url: fold(entry.url ?? ""),
      author: fold(entry.author ?? ""),
      content: fold(visibleText(entry.html, contentMatchChars)),
    };
    for (const rule of settings.smartTagRules) {
      const needle = fold(rule.contains);
      const hit = rule.field === "any" ? Object.values(fields).some((v) => v.includes(needle)) : fields[rule.field].includes(needle);
      if (hit) tags.push(...rule.tags);
    }
  }
  return uniqueTags(tags);
}

/** Tags without repeats (case-insensitive, the first spelling kept). */
export function uniqueTags(tags: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tags) {
    const key = t.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  return out;
}
