// The article's edges. Readability takes the article's container whole, and what sites put at its end after the
// last paragraph is mostly furniture: "back to the list", "print", a date line, a signature of an agency, topic
// labels, "more information", an advertisement label, a "did you like it?" prompt; before its first paragraph,
// date and update lines, reading times, labels. Part of the readable stage: short blocks after the article's last
// paragraph of prose are dropped, and short blocks before its first that are neither headings nor sentences. The
// paragraphs themselves (a short last one written as a sentence too), headings, and images, tables, lists, code
// and quotes stay.
import type { DomElement } from "./dom.ts";
import { linkTextLength, textOf } from "./dom.ts";
import { textWeight } from "./content.ts";

// A paragraph of prose: long enough to be a sentence or two, and not a row of links.
const PROSE_CHARS = 120;
const PROSE_LINK_SHARE = 0.3;
// Blocks after it shorter than this are tail furniture; before the first, head furniture.
const SHORT_CHARS = 120;
const HEAD_CHARS = 80;
// Never more than this share of the article goes.
const MAX_SHARE = 0.15;

const LEAF_BLOCKS = new Set(["p", "div", "section", "span", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dd", "dt", "small", "a", "em", "strong", "b", "i", "time", "address", "aside", "footer", "header"]);
const CONTENT_BLOCKS = new Set(["table", "pre", "blockquote", "ul", "ol", "dl", "figure", "img", "picture", "video", "audio", "iframe"]);

/** Drops the furniture at both ends of `article` (see above); returns how many blocks went. */
export function trimEdges(article: DomElement): number {
  const blocks = leafBlocks(article);
  return trimHead(article, blocks) + trimTail(article, blocks);
}

function trimHead(article: DomElement, blocks: DomElement[]): number {
  const first = blocks.findIndex(isProse);
  if (first <= 0) return 0;
  const head = blocks.slice(0, first).filter((b) => {
    const tag = b.localName.toLowerCase();
    if (CONTENT_BLOCKS.has(tag) || /^h[1-6]$/.test(tag) || b.querySelector("h1, h2, h3, h4, h5, h6, img, picture")) return false;
    const text = textOf(b);
    return textWeight(text) < HEAD_CHARS && !isSentence(text);
  });
  return removeAll(article, head);
}

function trimTail(article: DomElement, blocks: DomElement[]): number {
  let lastProse = -1;
  for (let i = blocks.length - 1; i >= 0; i--) {
    if (isProse(blocks[i]!)) {
      lastProse = i;
      break;
    }
  }
  if (lastProse < 0) return 0;
  const prose = blocks[lastProse]!;
  const tail = blocks
    .slice(lastProse + 1)
    .filter((b) => !CONTENT_BLOCKS.has(b.localName.toLowerCase()) && textWeight(textOf(b)) < SHORT_CHARS)
    .filter((b) => !isClosingParagraph(b, prose));
  return removeAll(article, tail);
}

// Removes `blocks` unless they hold more than MAX_SHARE of the article's text.
function removeAll(article: DomElement, blocks: DomElement[]): number {
  if (blocks.length === 0) return 0;
  const removed = blocks.reduce((n, b) => n + textOf(b).length, 0);
  if (removed > textOf(article).length * MAX_SHARE) return 0;
  for (const b of blocks) b.remove();
  return blocks.length;
}

// Four words or more ending as a sentence ends, in any script.
function isSentence(text: string): boolean {
  // Words are counted by spaces, or for scripts written without them, by weight.
  const words = text.split(" ").length >= 4 || textWeight(text) - text.length >= 16;
  return words && /[.!?…。！？"“”»)」』]$/u.test(text);
}

// The article's blocks in document order, each the smallest element holding a run of text: content structures
// (tables, lists, code, quotes, figures) whole; otherwise elements without block children.
function leafBlocks(root: DomElement): DomElement[] {
  const out: DomElement[] = [];
  const visit = (el: DomElement): void => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const tag = c.localName.toLowerCase();
      if (CONTENT_BLOCKS.has(tag)) out.push(c);
      else if (hasBlockChild(c)) visit(c);
      else if (textOf(c) || LEAF_BLOCKS.has(tag)) out.push(c);
    }
  };
  visit(root);
  return out.filter((b) => textOf(b) || CONTENT_BLOCKS.has(b.localName.toLowerCase()));
}

function hasBlockChild(el: DomElement): boolean {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const tag = c.localName.toLowerCase();
    if (CONTENT_BLOCKS.has(tag) || /^(p|div|section|article|h[1-6]|header|footer|aside|main|nav|form|center)$/.test(tag)) return true;
  }
  return false;
}

// A short last paragraph of the article itself: a <p> beside the last paragraph of prose (same parent), written
// as a sentence. Furniture sits in other containers or is no sentence ("Back", "Print", a date, a label).
function isClosingParagraph(el: DomElement, prose: DomElement): boolean {
  if (el.localName.toLowerCase() !== "p" || el.parentElement !== prose.parentElement) return false;
  return isSentence(textOf(el));
}

function isProse(el: DomElement): boolean {
  const tag = el.localName.toLowerCase();
  if (CONTENT_BLOCKS.has(tag)) return tag === "blockquote" || tag === "pre" || tag === "ul" || tag === "ol" || tag === "table" || tag === "dl";
  const text = textOf(el);
  if (textWeight(text) < PROSE_CHARS) return false;
  return linkTextLength(el) / text.length < PROSE_LINK_SHARE;
}
