// The page's densest run of paragraphs: the element whose own <p> children hold the most prose. A second opinion
// beside Readability's pick, which on some layouts (a headline block scored above the body, a body split by
// widgets) settles on a fraction of the article. Part of the readable stage.
import type { DomDocument, DomElement } from "./dom.ts";
import { linkTextLength, textOf } from "./dom.ts";
import { textWeight } from "./content.ts";

export interface Run {
  element: DomElement;
  /** The text weight (content.ts textWeight) of its paragraphs of prose. */
  weight: number;
}

// A paragraph counts when it is not mostly link text.
const MAX_LINK_SHARE = 0.3;

/** The element of `doc` whose child paragraphs weigh most, or null for a page without paragraphs. */
export function densestRun(doc: DomDocument): Run | null {
  const weights = new Map<DomElement, number>();
  for (const p of Array.from(doc.body.getElementsByTagName("p"))) {
    const parent = p.parentElement;
    if (!parent) continue;
    const text = textOf(p);
    if (!text || linkTextLength(p) / text.length > MAX_LINK_SHARE) continue;
    weights.set(parent, (weights.get(parent) ?? 0) + textWeight(text));
  }
  let best: Run | null = null;
  for (const [element, weight] of weights) if (!best || weight > best.weight) best = { element, weight };
  return best;
}
