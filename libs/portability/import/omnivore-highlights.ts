// Omnivore's highlights/<slug>.md: each highlight is a "> quote" block, then optionally its labels ("#a #b") and
// its note as paragraphs; text before the first quote is a note on the whole item. Omnivore marks only the blank
// lines of a multi-paragraph quote with ">", so a quote runs on (lazily, as in CommonMark) until a blank line.
import type { HighlightDraft } from "./collect.ts";

export interface OmnivoreHighlights {
  highlights: HighlightDraft[];
  /** Paragraphs before the first quote. */
  itemNote?: string;
}

export function parseOmnivoreHighlights(markdown: string): OmnivoreHighlights {
  const highlights: { quote: string[]; notes: string[] }[] = [];
  const itemNotes: string[] = [];
  let paragraph: string[] = [];
  let inQuote = false;

  const endParagraph = (): void => {
    const text = paragraph.join("\n").trim();
    paragraph = [];
    // A paragraph of labels only belongs to the highlight's labels, which Trove has no place for.
    if (text === "" || /^(#\S+\s*)+$/.test(text)) return;
    (highlights.at(-1)?.notes ?? itemNotes).push(text);
  };

  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.startsWith(">")) {
      const text = line.replace(/^>\s?/, "");
      if (inQuote) highlights.at(-1)?.quote.push(text);
      else {
        endParagraph();
        highlights.push({ quote: [text], notes: [] });
        inQuote = true;
      }
    } else if (line.trim() === "") {
      inQuote = false;
      endParagraph();
    } else if (inQuote) highlights.at(-1)?.quote.push(line);
    else paragraph.push(line);
  }
  endParagraph();

  const result: OmnivoreHighlights = {
    highlights: highlights.map((h) => ({ text: h.quote.join("\n").trim(), note: h.notes.join("\n\n") })),
  };
  if (itemNotes.length > 0) result.itemNote = itemNotes.join("\n\n");
  return result;
}
