// Text measures of every element of a tree in one bottom-up walk: how much text it holds, how much of that is
// link text, how many links it has. Block scoring asks these of thousands of elements; textContent per element
// would cost a walk of each subtree.
import type { DomElement, DomNode } from "./dom.ts";
import { ELEMENT_NODE, TEXT_NODE } from "./dom.ts";

export interface Measure {
  /** Characters of text, whitespace runs counted as one. */
  text: number;
  /** Characters of text inside <a href>. */
  linkText: number;
  /** <a href> elements that lead to another page (not "#fragment" or "javascript:"). */
  links: number;
}

const EMPTY: Measure = { text: 0, linkText: 0, links: 0 };

/** Measures of `root` and every element below it. */
export function measureTree(root: DomElement): Map<DomElement, Measure> {
  const out = new Map<DomElement, Measure>();
  // Iterative post-order: pages are deep enough (200 levels after parsing) that recursion is fine, but the walk
  // also runs on hostile pages, and an explicit stack costs nothing.
  const stack: { el: DomElement; child: DomNode | null; m: Measure }[] = [
    { el: root, child: root.firstChild, m: { text: 0, linkText: 0, links: 0 } },
  ];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const node = top.child;
    if (!node) {
      stack.pop();
      const tag = top.el.localName.toLowerCase();
      if (tag === "a" && isPageLink(top.el)) {
        top.m.linkText = top.m.text;
        top.m.links += 1;
      } else if (tag === "a" && top.el.hasAttribute("href")) {
        top.m.linkText = top.m.text;
      }
      out.set(top.el, top.m);
      const parent = stack[stack.length - 1];
      if (parent) {
        parent.m.text += top.m.text;
        parent.m.linkText += top.m.linkText;
        parent.m.links += top.m.links;
      }
      continue;
    }
    top.child = node.nextSibling;
    if (node.nodeType === TEXT_NODE) {
      top.m.text += collapsedLength(node.textContent ?? "");
    } else if (node.nodeType === ELEMENT_NODE) {
      const el = node as DomElement;
      const tag = el.localName.toLowerCase();
      if (tag === "script" || tag === "style" || tag === "template" || tag === "noscript") continue;
      stack.push({ el, child: el.firstChild, m: { text: 0, linkText: 0, links: 0 } });
    }
  }
  return out;
}

export function measureOf(measures: Map<DomElement, Measure>, el: DomElement): Measure {
  return measures.get(el) ?? EMPTY;
}

/** Share of an element's text that is link text (0 for an element without text). */
export function linkDensity(m: Measure): number {
  return m.text ? m.linkText / m.text : 0;
}

function collapsedLength(s: string): number {
  return s.replace(/\s+/g, " ").length;
}

/** True for a link to another page: not an in-page "#fragment", not a script. */
export function isPageLink(a: DomElement): boolean {
  const href = a.getAttribute("href")?.trim();
  if (!href || href.startsWith("#")) return false;
  return !/^(javascript|mailto|tel):/i.test(href);
}
