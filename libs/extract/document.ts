// Parsing HTML into a linkedom document that always has <html>, <head> and <body>, with a <base> that makes
// every relative URL resolve against the page address.
import { parseHTML } from "linkedom";
import type { DomDocument, DomElement, DomNode } from "./dom.ts";
import { ELEMENT_NODE, TEXT_NODE, isElement, unwrap } from "./dom.ts";
import { ExtractError } from "./error.ts";

// Elements that belong in <head> wherever a sloppy page put them.
const HEAD_TAGS = new Set(["title", "meta", "link", "base"]);
// Elements that may open a page before its body starts.
const EARLY_HEAD_TAGS = new Set(["style", "script", "noscript", "template"]);

// Real pages nest a few dozen levels deep (the corpus at most 37); Readability's cost grows with the cube of
// the depth (2000 nested <div>s take it 20 s) and turndown recurses once per level, so deeper is flattened.
const MAX_DEPTH = 200;

/**
 * The element budget of one page. Every later stage costs at least a walk of the tree and Readability much more
 * (40,000 `<div><a>` blocks, 80,000 elements, take it 17 s), so a page with more elements is refused right after
 * parsing. The 744 real pages of the shared corpus have at most 10,111 elements (median 704, 99th percentile
 * 3,700); Wikipedia, the densest, puts about 10,000 in 1 MB, so 50,000 is what a 5 MiB page (the fetch cap) of
 * such markup holds. Within the budget the deadline of the worker that runs extraction bounds the rest.
 */
export const pageElementLimit = 50_000;

/** Throws ExtractError page_too_complex when `doc` has more than `limit` elements. */
export function checkElementBudget(doc: DomDocument, limit: number): void {
  const count = doc.querySelectorAll("*").length;
  if (count > limit) {
    throw new ExtractError("page_too_complex", `page_too_complex: the page has ${count} elements; at most ${limit} are extracted`);
  }
}

/** Parses `html` and resolves the page's base address against `url`. */
export function parseDocument(html: string, url: string): DomDocument {
  // Control characters (NUL from binary junk, form feeds) are never text; tab, newline and CR are.
  let doc = parseHTML(html.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "")).document as DomDocument;
  if (!isWellFormed(doc)) doc = parseHTML(rebuild(doc)).document as DomDocument;
  setBase(doc, url);
  limitDepth(doc);
  return doc;
}

// Elements below MAX_DEPTH are unwrapped into the element at that depth: their text and leaf elements (images,
// line breaks) stay, in order; the structure does not.
function limitDepth(doc: DomDocument): void {
  const root = doc.documentElement;
  let el: DomElement | null = root;
  let depth = 0;
  while (el) {
    if (depth === MAX_DEPTH && el.firstElementChild) {
      for (const inner of Array.from(el.querySelectorAll("*"))) if (inner.firstChild) unwrap(inner);
    }
    if (depth < MAX_DEPTH && el.firstElementChild) {
      el = el.firstElementChild;
      depth++;
      continue;
    }
    while (el && el !== root && !el.nextElementSibling) {
      el = el.parentElement;
      depth--;
    }
    el = el && el !== root ? el.nextElementSibling : null;
  }
}

// linkedom does not synthesise missing <html>/<head>/<body> the way browsers do: "<p>hi" yields a document whose
// root is the <p>, and "<html><p>x</p></html>" leaves the paragraph outside any body. Only documents shaped like
// <html><head/><body/></html> are used as parsed; the rest are rebuilt. Note: reading document.head/body on
// linkedom creates them, so this check looks at the children only.
function isWellFormed(doc: DomDocument): boolean {
  const root = doc.documentElement;
  if (!root || root.localName.toLowerCase() !== "html") return false;
  let body = false;
  for (const child of Array.from(root.childNodes)) {
    if (child.nodeType === TEXT_NODE && /\S/.test(child.textContent ?? "")) return false;
    if (!isElement(child)) continue;
    const tag = child.localName.toLowerCase();
    if (tag === "body") body = true;
    else if (tag !== "head") return false;
  }
  return body;
}

// Serialises the parsed nodes back into a canonical skeleton, the way a browser would have placed them.
function rebuild(doc: DomDocument): string {
  const head: string[] = [];
  const body: string[] = [];
  const rootAttrs: string[] = [];
  const bodyAttrs: string[] = [];
  let inBody = false;
  const place = (node: DomNode, fromHead: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? "";
      if (!/\S/.test(text)) return;
      inBody = true;
      body.push(escapeText(text));
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return; // comments, doctype, processing instructions
    const el = node as DomElement;
    const tag = el.localName.toLowerCase();
    if (tag === "html" || tag === "head" || tag === "body") {
      const attrs = tag === "html" ? rootAttrs : tag === "body" ? bodyAttrs : null;
      if (attrs && attrs.length === 0) attrs.push(...attributesOf(el));
      if (tag === "body") inBody = true;
      for (const child of Array.from(el.childNodes)) place(child, tag === "head");
      return;
    }
    if (HEAD_TAGS.has(tag) || ((fromHead || !inBody) && EARLY_HEAD_TAGS.has(tag))) {
      head.push(el.outerHTML);
      return;
    }
    inBody = true;
    body.push(el.outerHTML);
  };
  for (const child of Array.from(doc.childNodes)) place(child, false);
  const html = `<html${rootAttrs.join("")}>`;
  return `<!DOCTYPE html>${html}<head>${head.join("")}</head><body${bodyAttrs.join("")}>${body.join("")}</body></html>`;
}

function attributesOf(el: DomElement): string[] {
  return Array.from(el.attributes, (a) => ` ${a.name}="${a.value.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`);
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// linkedom answers baseURI from the first <base href> only, so that element must carry an absolute address:
// the page's own (possibly relative) base resolved against the URL, or the URL itself.
function setBase(doc: DomDocument, url: string): void {
  const existing = doc.querySelector("base");
  const declared = existing?.getAttribute("href")?.trim();
  const href = (declared && resolveUrl(declared, url)) || url;
  if (existing) {
    existing.setAttribute("href", href);
    return;
  }
  const base = doc.createElement("base");
  base.setAttribute("href", href);
  doc.head.insertBefore(base, doc.head.firstChild);
}

/** `ref` made absolute against `base`, or null when it cannot be parsed. */
export function resolveUrl(ref: string, base: string): string | null {
  try {
    return new URL(ref.trim(), base).href;
  } catch {
    return null;
  }
}

/** The address every relative URL of `doc` resolves against. */
export function baseOf(doc: DomDocument, fallback: string): string {
  return doc.querySelector("base")?.getAttribute("href") || fallback;
}

/** Makes every link under `root` absolute (Readability does this for its article; the body fallback needs it). */
export function absolutizeLinks(root: DomElement, base: string): void {
  for (const a of Array.from(root.getElementsByTagName("a"))) {
    const href = a.getAttribute("href")?.trim();
    if (!href || /^javascript:/i.test(href)) continue;
    const resolved = resolveUrl(href, base);
    if (resolved) a.setAttribute("href", resolved);
  }
}
