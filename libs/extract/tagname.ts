// Faster `tagName` and `className` for linkedom elements. linkedom answers `tagName` and `nodeName` by upper-casing
// `localName` on every read (HTML documents ignore case), and `className` by building a DOMTokenList (a Set of the
// class attribute's words) for the element; Readability reads both for nearly every node it visits, many times
// over, and they took about a sixth of a page's extraction. Here the upper-cased names are kept per name and the
// class is read from its attribute. The answers are the strings linkedom gives (the class's words, each once,
// joined by a space), for HTML and XML documents alike.
import { parseHTML } from "linkedom";

const upper = new Map<string, string>();

function install(): void {
  const sample = parseHTML("<html><body><p></p></body></html>").document.createElement("p") as object;
  let proto: object | null = Object.getPrototypeOf(sample);
  while (proto && !Object.getOwnPropertyDescriptor(proto, "tagName")) proto = Object.getPrototypeOf(proto);
  const doc = (sample as { ownerDocument: object }).ownerDocument;
  const mime = Object.getOwnPropertySymbols(doc).find((s) => s.description === "mime");
  // A linkedom without these internals keeps its own getters.
  if (!proto || !mime) return;
  const key = mime;
  const name = function (this: { localName: string; ownerDocument: Record<symbol, { ignoreCase: boolean }> }): string {
    const local = this.localName;
    if (!this.ownerDocument[key]?.ignoreCase) return local;
    let cased = upper.get(local);
    if (cased === undefined) {
      cased = local.toUpperCase();
      // Names come from pages: a page of invented tags must not grow the table without bound.
      if (upper.size < 10_000) upper.set(local, cased);
    }
    return cased;
  };
  Object.defineProperty(proto, "tagName", { get: name, configurable: true });
  Object.defineProperty(proto, "nodeName", { get: name, configurable: true });
  const setter = Object.getOwnPropertyDescriptor(proto, "className")?.set;
  if (!setter) return;
  // getAttribute("class") itself answers from className in linkedom: the attribute node is read instead.
  const className = function (this: { getAttributeNode(name: string): { value: string } | null }): string {
    const value = this.getAttributeNode("class")?.value;
    if (!value) return "";
    const words = value.split(/\s+/).filter(Boolean);
    return words.length < 2 ? (words[0] ?? "") : [...new Set(words)].join(" ");
  };
  Object.defineProperty(proto, "className", { get: className, set: setter, configurable: true });
}

install();
