// The standfirst (lead, intro, deck): the sentence or two under the headline that many pages set apart from the
// body, in the header beside the title. Readability picks the body's container and so often loses it. Found by
// position alone: the first block of prose after the title heading. Marked before Readability runs and put back
// at the top of the article when Readability left it out.
import type { DomDocument, DomElement } from "./dom.ts";
import { linkTextLength, textOf } from "./dom.ts";
import { textWeight, wordTokens } from "./content.ts";
import { TITLE_ATTR } from "./metadata.ts";

const LEAD_ATTR = "data-trove-lead";
// How far after the title the lead may start (elements in document order), and its shape: a few sentences of
// prose, not a byline, a date or a link.
const MAX_STEPS = 40;
const MIN_CHARS = 60;
const MAX_CHARS = 1000;
const MIN_WORDS = 8;
const BLOCKS = new Set(["p", "div", "h2", "h3", "span", "section", "strong"]);
const NESTED_BLOCKS = "p, div, section, ul, ol, table, h1, h2, h3, h4, h5, h6, figure, blockquote";

/** The lead found: its text is kept now, because Readability may rebuild the page from HTML while it tries. */
export interface Lead {
  text: string;
}

/** Marks the lead of `doc` (the first prose block after its title heading, see metadata.ts); returns it or null. */
export function markLead(doc: DomDocument): Lead | null {
  const title = doc.body.querySelector(`[${TITLE_ATTR}]`);
  if (!title) return null;
  let el = nextAfter(title);
  for (let steps = 0; el && steps < MAX_STEPS; steps++, el = nextInOrder(el)) {
    const tag = el.localName.toLowerCase();
    if (tag === "h1" || tag === "h4" || tag === "h5" || tag === "h6") return null;
    if (!BLOCKS.has(tag) || el.querySelector(NESTED_BLOCKS)) continue;
    const text = textOf(el);
    if (textWeight(text) < MIN_CHARS) continue;
    if (text.length > MAX_CHARS || wordTokens(text).length < MIN_WORDS || linkTextLength(el) / text.length > 0.3) return null;
    el.setAttribute(LEAD_ATTR, "");
    return { text };
  }
  return null;
}

/** Puts the marked lead at the top of `article` when Readability left it out. */
export function restoreLead(doc: DomDocument, lead: Lead | null, article: DomElement): void {
  if (!lead || article.querySelector(`[${LEAD_ATTR}]`)) return;
  const text = lead.text;
  if (textOf(article).includes(text.slice(0, 80))) return;
  const p = doc.createElement("p");
  p.appendChild(doc.createTextNode(text));
  article.insertBefore(p, article.firstChild);
}


// The element after `el` in document order, not entering `el`.
function nextAfter(el: DomElement): DomElement | null {
  for (let cur: DomElement | null = el; cur; cur = cur.parentElement) {
    if (cur.nextElementSibling) return cur.nextElementSibling;
  }
  return null;
}

function nextInOrder(el: DomElement): DomElement | null {
  return el.firstElementChild ?? nextAfter(el);
}
