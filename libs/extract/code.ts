// Code blocks: which language a <pre> is in, and its text with line structure intact.
import type { DomElement, DomNode } from "./dom.ts";
import { TEXT_NODE, isElement } from "./dom.ts";

// The conventions of the common highlighters: Prism/highlight.js/CommonMark renderers (language-x, lang-x),
// GitHub (highlight-source-x), SyntaxHighlighter ("brush: x"), Pandoc ("sourceCode x").
const CLASS_PATTERNS = [
  /(?:^|\s)(?:language|lang)-([\w#+.-]+)/i,
  /(?:^|\s)highlight-(?:source|text)-([\w#+.-]+)/i,
  /(?:^|\s)brush:\s*([\w#+.-]+)/i,
  /(?:^|\s)sourceCode\s+([\w#+.-]+)/,
];
// Values that say "no language".
const NO_LANGUAGE = new Set(["none", "nohighlight", "plain", "plaintext", "undefined", "null", "sourcecode"]);

// Per-line gutters some highlighters put inside <pre>; their numbers are not code.
const GUTTER = /(?:^|\s)(?:gutter|line-?numbers?|linenos?|lineno|hljs-ln-numbers|ln-num|rouge-gutter)(?:\s|$)/i;
const LINE_BLOCKS = new Set(["div", "p", "li", "tr"]);

/** The language of a code block, from its <code> child, itself, or the wrappers highlighters put around it. */
export function codeLanguage(pre: DomElement): string {
  const candidates: DomElement[] = [];
  for (const child of Array.from(pre.children)) if (child.localName.toLowerCase() === "code") candidates.push(child);
  let el: DomElement | null = pre;
  for (let depth = 0; el && depth < 3; depth++, el = el.parentElement) candidates.push(el);
  for (const c of candidates) {
    const lang = languageOf(c);
    if (lang) return lang;
  }
  return "";
}

function languageOf(el: DomElement): string {
  for (const attr of ["data-lang", "data-language"]) {
    const value = clean(el.getAttribute(attr));
    if (value) return value;
  }
  const cls = el.getAttribute("class") ?? "";
  for (const pattern of CLASS_PATTERNS) {
    const value = clean(cls.match(pattern)?.[1]);
    if (value) return value;
  }
  return "";
}

function clean(value: string | null | undefined): string {
  const lang = value?.trim().toLowerCase().replace(/[^\w#+.-]/g, "") ?? "";
  return NO_LANGUAGE.has(lang) ? "" : lang;
}

/** The text of a code block: <br> and line-wrapping elements become newlines, line-number gutters are dropped. */
export function codeText(pre: DomElement): string {
  const out: string[] = [];
  const walk = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE) {
      out.push(node.textContent ?? "");
      return;
    }
    if (!isElement(node)) return;
    const tag = node.localName.toLowerCase();
    if (tag === "br") {
      out.push("\n");
      return;
    }
    if (GUTTER.test(node.getAttribute("class") ?? "")) return;
    for (const child of Array.from(node.childNodes)) walk(child);
    if (LINE_BLOCKS.has(tag) && !out[out.length - 1]?.endsWith("\n")) out.push("\n");
  };
  walk(pre);
  return out.join("").replace(/\r\n?/g, "\n").replace(/^\n+|\s+$/g, "");
}
