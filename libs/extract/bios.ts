// Author boxes the page itself names: the text its JSON-LD gives as an author's description (schema.org Person
// `description`) is what the author box under the article says ("Jane Doe writes about money and has…"). The
// block holding that text, and no more, goes. Run on the article once it is chosen: Readability's choice on
// page-builder layouts turns on every paragraph, and a bio outside the article is gone already.
import type { DomElement, DomNode } from "./dom.ts";
import { TEXT_NODE, isElement, textOf } from "./dom.ts";
import { TITLE_ATTR } from "./metadata.ts";

// A text node holding this much of the bio's start is where the box is; the box must hold twice as much.
const FIND_CHARS = 30;
const CONFIRM_CHARS = 60;
// The box may hold the author's name, a photo caption or a "more by" link beside the bio, not an article.
const SLACK = 1.2;
const SLACK_CHARS = 80;
const CONTENT_ROOTS = "article, main, [role=main], [itemprop~=articleBody]";
const isContentRoot = (el: DomElement): boolean =>
  /^(article|main)$/i.test(el.localName) ||
  el.getAttribute("role") === "main" ||
  (el.getAttribute("itemprop") ?? "").split(/\s+/).includes("articleBody");

/** Removes the blocks inside `root` that hold one of `bios` (and little else); answers how many. */
export function removeAuthorBios(root: DomElement, bios: string[]): number {
  if (bios.length === 0) return 0;
  const starts = bios.map((bio) => ({ bio, find: bio.slice(0, FIND_CHARS), confirm: bio.slice(0, CONFIRM_CHARS) }));
  const boxes = new Set<DomElement>();
  const visit = (node: DomNode): void => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (isElement(c)) visit(c);
      else if (c.nodeType === TEXT_NODE) {
        const text = (c.textContent ?? "").replace(/\s+/g, " ");
        for (const s of starts) {
          if (!text.includes(s.find)) continue;
          const box = boxOf(c, s.bio, s.confirm, root);
          if (box) boxes.add(box);
        }
      }
    }
  };
  visit(root);
  let removed = 0;
  for (const box of boxes) {
    if (!box.parentElement) continue;
    box.remove();
    removed++;
  }
  return removed;
}

// The outermost ancestor of `text` below `root` that holds the bio's start and not much more than the bio.
function boxOf(text: DomNode, bio: string, confirm: string, root: DomElement): DomElement | null {
  let box: DomElement | null = null;
  const most = bio.length * SLACK + SLACK_CHARS;
  for (let el = text.parentElement; el && el !== root; el = el.parentElement) {
    if (el.hasAttribute(TITLE_ATTR) || isContentRoot(el)) break;
    const t = textOf(el);
    if (t.length > most) break;
    if (t.includes(confirm)) box = el;
  }
  return box && !box.querySelector(`[${TITLE_ATTR}], ${CONTENT_ROOTS}`) ? box : null;
}
