// The article text a page states about itself (JSON-LD articleBody, microdata itemprop=articleBody) as a check on
// Readability's pick and, when the pick misses it, as the way to the element that holds the article.
import type { DomDocument, DomElement } from "./dom.ts";
import { textOf } from "./dom.ts";
import { wordTokens } from "./content.ts";

// A stated body shorter than this is a summary, not the article.
const MIN_STATED_CHARS = 300;
// Readability's pick is trusted when it holds at least this share of the stated body's words; the element found
// from the stated body must hold more.
const PICK_COVERAGE = 0.5;
const ELEMENT_COVERAGE = 0.8;
// Paragraph-sized blocks that anchor the search, and how much of them must match the stated text.
const ANCHOR_CHARS = 60;
const MAX_STATED_CHARS = 200_000;
const MAX_ANCHORS = 3_000;

/** True when `text` holds most of the stated article body (or the page states none worth checking). */
export function coversArticleBody(text: string, stated: string | null): boolean {
  if (!stated || stated.length < MIN_STATED_CHARS) return true;
  return coverage(text, stated) >= PICK_COVERAGE;
}

/**
 * The smallest element of `doc` holding the stated article body: the common ancestor of the first and the last
 * paragraph whose text the stated body contains, accepted when it holds most of the stated words. Null when the
 * page states none or its markup does not hold it.
 */
export function articleBodyElement(doc: DomDocument, stated: string | null): DomElement | null {
  if (!stated || stated.length < MIN_STATED_CHARS) return null;
  // Bounded, since each anchor is a substring search of the stated text: a page may state a huge body and hold
  // tens of thousands of paragraphs.
  const body = collapse(stated).slice(0, MAX_STATED_CHARS);
  let first: DomElement | null = null;
  let last: DomElement | null = null;
  for (const p of Array.from(doc.body.querySelectorAll("p, li, h2, h3, blockquote, pre")).slice(0, MAX_ANCHORS)) {
    const text = textOf(p);
    if (text.length < ANCHOR_CHARS / 2 || !body.includes(text.slice(0, ANCHOR_CHARS))) continue;
    first ??= p;
    last = p;
  }
  if (!first || !last) return null;
  const root = commonAncestor(first, last);
  if (!root || root === doc.body || root === doc.documentElement) return null;
  return coverage(textOf(root), stated) >= ELEMENT_COVERAGE ? root : null;
}

function commonAncestor(a: DomElement, b: DomElement): DomElement | null {
  const above = new Set<DomElement>();
  for (let cur: DomElement | null = a; cur; cur = cur.parentElement) above.add(cur);
  for (let cur: DomElement | null = b; cur; cur = cur.parentElement) if (above.has(cur)) return cur;
  return null;
}

// Share of the stated body's words (with multiplicity) found in `text`.
function coverage(text: string, stated: string): number {
  const have = new Map<string, number>();
  for (const w of wordTokens(text)) have.set(w, (have.get(w) ?? 0) + 1);
  const want = wordTokens(stated);
  if (want.length === 0) return 1;
  let found = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      found++;
      have.set(w, n - 1);
    }
  }
  return found / want.length;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
