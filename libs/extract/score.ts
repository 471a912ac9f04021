// Block scoring: after the named furniture is gone (clean.ts) and before Readability picks the article, every
// block of the page is judged on structure alone: how much of its text is links, how long it is, whether the
// same block appears twice, what it sits next to. Blocks judged boilerplate are removed, so that neither
// Readability nor the Markdown sees them. Nothing here reads the page's words: the rules hold for any language.
//
// Removed: link lists and teaser cards ("read more", "related", tag clouds, tables of contents, share bars written
// as links), paragraphs that are only a link to another page, blocks repeated on the page (a share bar at the top
// and the bottom, "advertisement" labels), image credits, comment sections, and headings or short labels left
// with nothing under them. Kept whatever the rules say: the page's title heading and everything around it up to
// the structured article container, and any block holding most of the page's text.
import type { DomDocument, DomElement } from "./dom.ts";
import { TEXT_NODE, isElement, textOf } from "./dom.ts";
import { linkDensity, measureOf, measureTree, type Measure } from "./measure.ts";
import { words, type Removal } from "./clean.ts";
import { TITLE_ATTR } from "./metadata.ts";

export type BoilerplateReason =
  | "link_list"
  | "link_paragraph"
  | "teaser_heading"
  | "teaser_cards"
  | "repeated"
  | "credit"
  | "comments"
  | "orphan_heading"
  | "orphan_label";

// Boxes judged as a whole; inline elements are judged only as credits.
const BOX_TAGS = new Set([
  "div", "section", "ul", "ol", "dl", "table", "aside", "header", "footer", "nav", "article", "p", "figure",
  "center", "details", "form", "blockquote",
]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
// Containers of the article itself when the page marks one.
const STRUCTURED_ROOTS = "main, [role=main], [itemprop~=articleBody]";

// A box is a link list when at least this share of its text is link text and what is left would not make a
// sentence; a paragraph, when it is (almost) one link.
const LIST_LINK_DENSITY = 0.65;
const LIST_MAX_PLAIN_TEXT = 200;
const PARAGRAPH_LINK_DENSITY = 0.8;
const PARAGRAPH_MAX_TEXT = 200;
// A block holding this share of the page's text is the article (or holds it), whatever it looks like.
const MAIN_SHARE = 0.4;
// The share of the page's text the pass must leave, or it removes nothing.
const MIN_KEPT_SHARE = 0.3;
// A paragraph of prose: a sentence or two.
const PROSE_CHARS = 120;
// Teaser cards are short and mostly link.
const CARD_MAX_TEXT = 400;
const CARD_LINK_DENSITY = 0.3;
// Repeated blocks: long enough to be more than a word, short enough to be chrome rather than a pull quote.
const REPEAT_MIN = 8;
const REPEAT_MAX = 200;
// Credits are short.
const CREDIT_MAX = 160;

// Class/id words of image credits and comment sections (whole words, as in clean.ts).
const CREDIT_WORDS = new Set([
  "credit", "credits", "copyright", "photographer", "photocredit", "imagecredit", "bildnachweis", "fotonachweis",
  "bildquelle", "copyright-note",
]);
const COMMENT_WORDS = new Set([
  "comment", "comments", "commentlist", "respond", "disqus", "kommentar", "kommentare", "commentaires",
  "comentarios", "commenti", "reacties",
]);
// A caption that is only a credit opens with a credit label; each is given in the languages of the web at large.
const CREDIT_TEXT =
  /^\s*(?:©|\(c\)|copyright\b|(?:foto|fotos|photo|photos|bild|bilder|image|images|picture|credit|credits|quelle|source|sources|fuente|crédito|créditos|crédit|fonte|źródło|zdjęcie|fot|kuva|bron|beeld)\s*[:.]|credit\s*:|photo\s+by\b)/i;

/** Removes the blocks of `doc` judged boilerplate; returns what was removed, by reason (for diagnosis). */
export function removeBoilerplate(doc: DomDocument, earlier: Removal[] = []): Map<DomElement, BoilerplateReason> {
  const body = doc.body;
  const measures = measureTree(body);
  const pageText = measureOf(measures, body).text;
  const kept = keptElements(doc, measures, pageText);
  const verdicts = new Map<DomElement, BoilerplateReason>();

  for (const el of repeatedBlocks(body, measures, kept)) verdicts.set(el, "repeated");
  walk(body, (el) => {
    if (verdicts.has(el)) return false;
    const reason = judge(el, measures, kept);
    if (reason) {
      verdicts.set(el, reason);
      return false;
    }
    return true;
  });
  // A page that is mostly links (a directory, a list of resources) is its links: when the verdicts would leave
  // too little of the page, none is carried out.
  let removedText = 0;
  for (const el of verdicts.keys()) removedText += measureOf(measures, el).text;
  if (pageText > 0 && pageText - removedText < pageText * MIN_KEPT_SHARE) return new Map();

  // What stood before each removed block (its heading or label, perhaps), looked up once the block is gone: the
  // previous sibling, or when the block was alone in a wrapper now empty, the wrapper's previous sibling.
  const removed: Removal[] = [...earlier, ...[...verdicts.keys()].map((el) => ({ prev: el.previousElementSibling, parent: el.parentElement }))];
  for (const el of verdicts.keys()) el.remove();
  const before = new Set<DomElement>();
  for (const { prev, parent } of removed) {
    let at: DomElement | null = prev && prev.parentElement ? prev : null;
    for (let cur = parent; !at && cur && cur !== body && isEmpty(cur); cur = cur.parentElement) at = cur.previousElementSibling;
    if (at && !verdicts.has(at)) before.add(at);
  }
  for (const [el, reason] of removeOrphans(before, kept)) verdicts.set(el, reason);
  for (const el of emptySections(body, kept)) {
    verdicts.set(el, "orphan_heading");
    el.remove();
  }
  return verdicts;
}

// The title heading, the structured article container, and every ancestor of either; plus any block with most
// of the page's text. Removing one of these would remove the article.
function keptElements(doc: DomDocument, measures: Map<DomElement, Measure>, pageText: number): Set<DomElement> {
  const kept = new Set<DomElement>();
  const keepWithAncestors = (el: DomElement | null): void => {
    for (let cur = el; cur && !kept.has(cur); cur = cur.parentElement) kept.add(cur);
  };
  keepWithAncestors(doc.body.querySelector(`[${TITLE_ATTR}]`));
  for (const root of Array.from(doc.body.querySelectorAll(STRUCTURED_ROOTS))) keepWithAncestors(root);
  for (const [el, m] of measures) if (pageText > 0 && m.text >= pageText * MAIN_SHARE) kept.add(el);
  return kept;
}

// Depth-first over the elements below `root`; `visit` returns false to skip an element's subtree.
function walk(root: DomElement, visit: (el: DomElement) => boolean): void {
  const stack: DomElement[] = [];
  for (let c = root.firstElementChild; c; c = c.nextElementSibling) stack.push(c);
  stack.reverse();
  while (stack.length) {
    const el = stack.pop()!;
    if (!visit(el)) continue;
    const children: DomElement[] = [];
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) children.push(c);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function judge(el: DomElement, measures: Map<DomElement, Measure>, kept: Set<DomElement>): BoilerplateReason | null {
  if (kept.has(el)) return null;
  const tag = el.localName.toLowerCase();
  const m = measureOf(measures, el);
  if (isCredit(el, tag, m)) return "credit";
  if (!BOX_TAGS.has(tag) && !HEADINGS.has(tag)) return null;
  if (hasNamedWord(el, COMMENT_WORDS) && tag !== "p") return "comments";
  if (m.text === 0) return null;
  // A headline that is all link is a teaser, unless a paragraph of prose follows it: then it heads a section of
  // the article that links its subject (a product, a place).
  if (HEADINGS.has(tag)) return m.links > 0 && linkDensity(m) >= 0.9 && !proseFollows(el, measures) ? "teaser_heading" : null;
  // A paragraph inside a list item or a table cell belongs to its list or table, which are judged as a whole: a
  // list of linked titles, each with its description, is the article's own list.
  if ((tag === "p" || isLineBox(el)) && !hasAncestor(el, ITEM_TAGS)) {
    // A linked image (a lightbox link around a <picture>) has only the whitespace around the image as "text".
    if (m.text <= PARAGRAPH_MAX_TEXT && !textOf(el)) return null;
    if (m.links >= 1 && m.text <= PARAGRAPH_MAX_TEXT && linkDensity(m) >= PARAGRAPH_LINK_DENSITY) return "link_paragraph";
    // "Read also: <a>Another story</a>": a short label with a colon, then a link to another page.
    if (m.links >= 1 && m.text <= PARAGRAPH_MAX_TEXT && linkDensity(m) >= 0.6 && isLabelledLink(el)) return "link_paragraph";
    return null;
  }
  if (m.links >= 2 && linkDensity(m) >= LIST_LINK_DENSITY && m.text - m.linkText <= LIST_MAX_PLAIN_TEXT) return "link_list";
  if (m.links >= 2 && isCardList(el, measures)) return "teaser_cards";
  return null;
}

// Teaser cards: two or more children of one kind (same tag and class), each a short block that leads elsewhere
// through a link and carries a heading or an image (a headline, a picture, a line of excerpt). An article's own
// paragraphs and lists do not look like this: their items are longer or not led by links.
function isCardList(el: DomElement, measures: Map<DomElement, Measure>): boolean {
  const children: DomElement[] = [];
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) children.push(c);
  if (children.length < 2) return false;
  let cards = 0;
  let linkedCards = 0;
  for (const c of children) {
    const m = measureOf(measures, c);
    if (m.text === 0) continue;
    if (!isCard(c, m)) return false;
    cards++;
    if (linkDensity(m) >= CARD_LINK_DENSITY) linkedCards++;
  }
  // Cards that lead on through a small "more" link rather than a linked headline count from three up.
  if (cards < 2 || (linkedCards < cards && cards < 3)) return false;
  const kinds = new Set(children.map((c) => `${c.localName}.${c.getAttribute("class") ?? ""}`));
  return kinds.size === 1;
}

function isCard(el: DomElement, m: Measure): boolean {
  if (m.links === 0 || m.text > CARD_MAX_TEXT) return false;
  if (linkDensity(m) >= CARD_LINK_DENSITY) return el.querySelector("h2, h3, h4, h5, h6, img, picture") !== null;
  // A headline, an excerpt and a link out: a teaser even when the link is only "read more".
  return el.querySelector("h2, h3, h4, h5, h6") !== null && el.querySelector("img, picture") !== null;
}

// The first sibling with text after `el` (past emptied embeds and images) is a paragraph of prose.
function proseFollows(el: DomElement, measures: Map<DomElement, Measure>): boolean {
  for (let next = el.nextElementSibling, steps = 0; next && steps < 4; next = next.nextElementSibling, steps++) {
    const m = measureOf(measures, next);
    if (m.text === 0) continue;
    return m.text >= PROSE_CHARS && linkDensity(m) < 0.3;
  }
  return false;
}

// The text before the paragraph's first link is a short label ending in a colon.
function isLabelledLink(el: DomElement): boolean {
  const a = el.querySelector("a[href]");
  if (!a) return false;
  let label = "";
  const collect = (node: DomElement): boolean => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c === a) return true;
      if (c.nodeType === TEXT_NODE) label += c.textContent ?? "";
      else if (isElement(c) && collect(c)) return true;
    }
    return false;
  };
  collect(el);
  const text = label.replace(/\s+/g, " ").trim();
  return text.length > 0 && text.length <= 25 && /[:：]$/.test(text);
}

// A div or similar that holds only inline content reads as one paragraph.
function isLineBox(el: DomElement): boolean {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const tag = c.localName.toLowerCase();
    if (BOX_TAGS.has(tag) || HEADINGS.has(tag) || tag === "li" || tag === "br" || tag === "img") return false;
  }
  return true;
}

function isCredit(el: DomElement, tag: string, m: Measure): boolean {
  if (m.text === 0 || m.text > CREDIT_MAX) return false;
  if (hasNamedWord(el, CREDIT_WORDS)) return true;
  // Inside a figure: an element named a caption's "source", or a caption whose text is only a credit line.
  if (tag !== "figcaption" && !insideFigure(el)) return false;
  if (/(^|[-_\s])source($|[-_\s])/i.test(el.getAttribute("class") ?? "")) return true;
  return m.text <= 100 && m.linkText < m.text && CREDIT_TEXT.test(textOf(el));
}

// `el` is a figure or caption, or inside one.
function insideFigure(el: DomElement): boolean {
  for (let cur: DomElement | null = el; cur; cur = cur.parentElement) {
    const tag = cur.localName.toLowerCase();
    if (tag === "figure" || tag === "figcaption") return true;
    if (tag === "body") return false;
    const cls = cur.getAttribute("class");
    if (cls && cls.includes("caption")) return true;
  }
  return false;
}

function hasNamedWord(el: DomElement, names: Set<string>): boolean {
  const id = el.getAttribute("id") ?? "";
  const cls = el.getAttribute("class") ?? "";
  if (!id && !cls) return false;
  for (const name of [id, ...cls.split(/\s+/)]) {
    if (!name) continue;
    if (names.has(name.toLowerCase())) return true;
    if (cachedWords(name).some((w) => names.has(w))) return true;
  }
  return false;
}

// Pages repeat a handful of class names thousands of times; splitting each once is enough. Bounded by entries and
// by the names' characters (a hostile page's class names can be long): past either bound the cache starts again.
const wordCache = new Map<string, string[]>();
const wordCacheLimits = { entries: 5_000, chars: 500_000 };
let wordCacheChars = 0;
function cachedWords(name: string): string[] {
  const cached = wordCache.get(name);
  if (cached) return cached;
  const found = words(name);
  if (wordCache.size >= wordCacheLimits.entries || wordCacheChars + name.length > wordCacheLimits.chars) {
    wordCache.clear();
    wordCacheChars = 0;
  }
  if (name.length <= wordCacheLimits.chars) {
    wordCache.set(name, found);
    wordCacheChars += name.length;
  }
  return found;
}

// The outermost block of each text that appears in two or more places on the page (and not inside a table or
// list, where repeated cells and items are content), but one copy.
function repeatedBlocks(body: DomElement, measures: Map<DomElement, Measure>, kept: Set<DomElement>): DomElement[] {
  const byText = new Map<string, DomElement[]>();
  for (const [el, m] of measures) {
    if (el === body || kept.has(el) || m.text < REPEAT_MIN || m.text > REPEAT_MAX) continue;
    const parent = el.parentElement;
    // Only the outermost element with this text: a parent with the same length holds nothing else.
    if (parent && measureOf(measures, parent).text === m.text && parent !== body) continue;
    const tag = el.localName.toLowerCase();
    if (!BOX_TAGS.has(tag) && !HEADINGS.has(tag) && tag !== "span" && tag !== "a") continue;
    if (hasAncestor(el, LIST_LIKE)) continue;
    const key = textOf(el);
    const list = byText.get(key);
    // Measures come children first: a wrapper whose text differs from its child's only by whitespace comes right
    // after that child and replaces it.
    if (!list) byText.set(key, [el]);
    else if (isInside(list[list.length - 1]!, el)) list[list.length - 1] = el;
    else list.push(el);
  }
  const out: DomElement[] = [];
  for (const list of byText.values()) {
    if (list.length < 2) continue;
    // One copy stays: pages print the same lead, caption or ingredient list twice for different screens, and
    // quote the article in teasers. The copy kept is the one amid the most text (its parent's), the article's.
    let keep = list[0]!;
    let best = -1;
    for (const el of list) {
      const around = el.parentElement ? measureOf(measures, el.parentElement).text : 0;
      if (around > best) [keep, best] = [el, around];
    }
    for (const el of list) if (el !== keep) out.push(el);
  }
  return out;
}

// After the removals, the elements just before a removed block: a heading with nothing left under it before the
// next heading of the same or a higher level, or a short label paragraph ("Read also:") with nothing after it.
function removeOrphans(candidates: Set<DomElement>, kept: Set<DomElement>): Map<DomElement, BoilerplateReason> {
  const out = new Map<DomElement, BoilerplateReason>();
  for (const el of candidates) {
    if (kept.has(el) || !el.parentElement) continue;
    if (headingLevel(el) !== null) {
      if (headingLevel(el)! > 1 && !hasContentAfter(el)) out.set(el, "orphan_heading");
      continue;
    }
    const text = textOf(el);
    if (text.length === 0 || text.length > 60 || !/[:：?？!]$/.test(text)) continue;
    out.set(el, "orphan_label");
  }
  for (const el of out.keys()) el.remove();
  return out;
}

// True when some text follows `el` within its parent before a heading of the same or a higher level (for a
// paragraph: before any heading).
function hasContentAfter(el: DomElement): boolean {
  const level = headingLevel(el) ?? 7;
  for (let sib = el.nextSibling; sib; sib = sib.nextSibling) {
    if (isElement(sib)) {
      const l = headingLevel(sib);
      if (l !== null && l <= level) return false;
      if (l !== null && level === 7) return false;
      if (textOf(sib) || sib.querySelector("img, picture, video, table, pre") || /^(img|picture|video|pre|table)$/i.test(sib.localName)) return true;
    } else if ((sib.textContent ?? "").trim()) {
      return true;
    }
  }
  return false;
}

// Headings whose section is empty in document order: nothing but other empty elements between them and the next
// heading of the same or a higher level (or the end of the page). Their content was furniture, now gone; or they
// are overlines set above a bigger heading.
function emptySections(body: DomElement, kept: Set<DomElement>): DomElement[] {
  const out: DomElement[] = [];
  for (const h of Array.from(body.querySelectorAll("h2, h3, h4, h5, h6"))) {
    if (kept.has(h)) continue;
    if (!sectionHasContent(h, body)) out.push(h);
  }
  return out;
}

function sectionHasContent(h: DomElement, body: DomElement): boolean {
  const level = headingLevel(h)!;
  let steps = 0;
  for (let el = nextOutside(h, body); el && steps < 500; el = nextInDocument(el, body), steps++) {
    const l = headingLevel(el);
    if (l !== null) {
      if (l <= level) return false;
      continue;
    }
    if (/^(img|picture|video|audio|table|pre|iframe|math)$/i.test(el.localName)) return true;
    if (/^(script|style|template|noscript)$/i.test(el.localName)) continue;
    // Own text only: a container's text is that of its children, which are visited next.
    for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === TEXT_NODE && (c.textContent ?? "").trim()) return true;
  }
  return steps >= 500;
}

function nextOutside(el: DomElement, root: DomElement): DomElement | null {
  for (let cur: DomElement | null = el; cur && cur !== root; cur = cur.parentElement) {
    if (cur.nextElementSibling) return cur.nextElementSibling;
  }
  return null;
}

function nextInDocument(el: DomElement, root: DomElement): DomElement | null {
  return el.firstElementChild ?? nextOutside(el, root);
}

function isEmpty(el: DomElement): boolean {
  return !textOf(el) && !el.querySelector("img, picture, video, iframe, table, pre");
}

const LIST_LIKE = new Set(["table", "ul", "ol", "dl", "pre", "select"]);
const ITEM_TAGS = new Set(["li", "dd", "dt", "td", "th"]);

// `el` or one of its ancestors is one of `tags` (a parent walk: linkedom's closest() parses its selector per call).
function hasAncestor(el: DomElement, tags: Set<string>): boolean {
  for (let cur: DomElement | null = el; cur; cur = cur.parentElement) if (tags.has(cur.localName.toLowerCase())) return true;
  return false;
}

function isInside(el: DomElement, ancestor: DomElement): boolean {
  for (let cur = el.parentElement; cur; cur = cur.parentElement) if (cur === ancestor) return true;
  return false;
}

function headingLevel(el: DomElement): number | null {
  const m = /^h([1-6])$/i.exec(el.localName);
  return m ? Number(m[1]) : null;
}
