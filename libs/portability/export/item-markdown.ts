// One item as the Markdown file of the Markdown ZIP export. The Trove Markdown ZIP import reads it back by the
// frontmatter and the `<!-- trove:… -->` markers, so this layout is a file format: change it only with the parser.
//
//   ---
//   <YAML: id, url, title, status, tags, collections, created, updated[, processed][, contentExtracted][, source]>
//   ---
//   <blank line>
//   <!-- trove:content -->            ┐ when the record carries content (even empty); the text between the line
//   <content, markers escaped>        │ break after the opening marker and the one before the closing marker
//   <!-- /trove:content -->           ┘
//   <blank line, between sections>
//   ## Highlights                     ┐ when the item has highlights: a list to read (each a `> ` quote, its note
//   <blank line>                      │ as a paragraph under it), then the highlights as JSON (PortableHighlight[],
//   > quote                           │ offsets included), pretty-printed, with `<` and backticks written \u003c
//   <blank line>                      │ and \u0060 so neither a marker nor a fence can appear inside it
//   note                              │
//   <blank line>                      │
//   <!-- trove:highlights -->         │
//   ```json                           │
//   [ … ]                             │
//   ```                               │
//   <!-- /trove:highlights -->        ┘
//   <blank line>
//   ## Note                           ┐ when the record carries a non-empty note
//   <blank line>                      │
//   <!-- trove:note -->               │
//   <note, markers escaped>           │
//   <!-- /trove:note -->              ┘
//
// Escaping: content and notes may hold the marker strings themselves. Every `<!--` directly followed by zero or
// more U+200B (zero-width space) and then ` trove:` or ` /trove:` gets one more U+200B after the `<!--`, so no
// marker string is left inside a section; `unescapeMarkers` removes one again, giving back the text exactly.
import { stringify } from "yaml";
import type { ExportRecord, PortableHighlight } from "@trove/contracts";
import { isoTime, portableHighlight } from "./record.ts";

export const markers = {
  content: { open: "<!-- trove:content -->", close: "<!-- /trove:content -->" },
  highlights: { open: "<!-- trove:highlights -->", close: "<!-- /trove:highlights -->" },
  note: { open: "<!-- trove:note -->", close: "<!-- /trove:note -->" },
} as const;

export const escapeMarkers = (text: string): string => text.replace(/<!--(\u200B*) (\/?trove:)/g, "<!--\u200B$1 $2");
export const unescapeMarkers = (text: string): string => text.replace(/<!--\u200B(\u200B*) (\/?trove:)/g, "<!--$1 $2");

/** The frontmatter block, `---` lines included; tags and collections always (`[]` when none), times ISO 8601 UTC. */
export function itemFrontmatter(r: ExportRecord): string {
  const { id, url, title, status, tags, collections } = r;
  const data: Record<string, unknown> = { id, url, title, status, tags, collections, created: isoTime(r.createdAt), updated: isoTime(r.updatedAt) };
  if (r.processedAt !== null) data.processed = isoTime(r.processedAt);
  if (r.contentExtractedAt !== null) data.contentExtracted = isoTime(r.contentExtractedAt);
  if (r.source !== null) data.source = r.source;
  return `---\n${stringify(data, { lineWidth: 0 })}---\n`;
}

const section = (m: { open: string; close: string }, text: string) => `${m.open}\n${text}\n${m.close}\n`;

/** Each line quoted; an empty line stays inside the quote. */
const quote = (text: string) =>
  escapeMarkers(text)
    .split("\n")
    .map((l) => (l === "" ? ">" : `> ${l}`))
    .join("\n");

const highlightsJson = (hs: PortableHighlight[]) =>
  JSON.stringify(hs.map(portableHighlight), null, 2).replace(/[<`]/g, (c) => (c === "<" ? "\\u003c" : "\\u0060"));

function highlightsSection(hs: PortableHighlight[]): string {
  const list = hs.map((h) => `${quote(h.text)}\n${h.note ? `\n${escapeMarkers(h.note)}\n` : ""}`).join("\n");
  return `## Highlights\n\n${list}\n${section(markers.highlights, `\`\`\`json\n${highlightsJson(hs)}\n\`\`\``)}`;
}

/** The whole file; `record` as the export writes it (content and note already left out when not included). */
export function itemMarkdown(r: ExportRecord): string {
  const sections: string[] = [];
  if (r.contentMarkdown !== undefined) sections.push(section(markers.content, escapeMarkers(r.contentMarkdown)));
  if (r.highlights.length > 0) sections.push(highlightsSection(r.highlights));
  if (r.note) sections.push(`## Note\n\n${section(markers.note, escapeMarkers(r.note))}`);
  return `${itemFrontmatter(r)}\n${sections.join("\n")}`;
}
