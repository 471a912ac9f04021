// The editor's draft from a loaded note, and the normalising that decides which metadata the user changed.
import type { Draft, Note } from "./types.ts";

export const draftOf = (n: Note): Draft => ({
  title: n.title,
  body: n.bodyMarkdown,
  tags: n.tags.join(", "),
  kind: n.kind ?? "",
  state: n.state ?? "",
  project: n.project ?? "",
});

export const tagList = (text: string) => [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
// Kind and state are slugs: typed words become one.
export const slugOrNull = (text: string) => text.trim().toLowerCase().replace(/\s+/g, "-") || null;
