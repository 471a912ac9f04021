// The slice of the DOM this package touches, typed structurally: the repository compiles without the DOM lib,
// and linkedom's own declarations resolve to `any`, so these interfaces are what keeps the extractor type-checked.

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  textContent: string | null;
  readonly parentNode: DomParent | null;
  readonly parentElement: DomElement | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly firstChild: DomNode | null;
  readonly lastChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly previousSibling: DomNode | null;
  remove(): void;
  cloneNode(deep?: boolean): DomNode;
}

export interface DomText extends DomNode {
  data: string;
}

export interface DomParent extends DomNode {
  readonly children: ArrayLike<DomElement>;
  readonly firstElementChild: DomElement | null;
  appendChild(node: DomNode): DomNode;
  insertBefore(node: DomNode, ref: DomNode | null): DomNode;
  removeChild(node: DomNode): DomNode;
  replaceChild(node: DomNode, old: DomNode): DomNode;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  getElementsByTagName(name: string): ArrayLike<DomElement>;
  normalize(): void;
}

export interface DomElement extends DomParent {
  readonly localName: string;
  readonly tagName: string;
  id: string;
  className: string;
  innerHTML: string;
  readonly outerHTML: string;
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
  readonly nextElementSibling: DomElement | null;
  readonly previousElementSibling: DomElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  closest(selector: string): DomElement | null;
  replaceWith(...nodes: DomNode[]): void;
}

export interface DomDocument extends DomParent {
  readonly documentElement: DomElement | null;
  readonly head: DomElement;
  readonly body: DomElement;
  readonly title: string;
  createElement(name: string): DomElement;
  createTextNode(text: string): DomText;
}

export function isElement(node: DomNode | null | undefined): node is DomElement {
  return node?.nodeType === ELEMENT_NODE;
}

/** Swaps an element for a new one named `tag`, moving its children; returns the new element. */
export function renameElement(doc: DomDocument, el: DomElement, tag: string): DomElement {
  const next = doc.createElement(tag);
  while (el.firstChild) next.appendChild(el.firstChild);
  el.replaceWith(next);
  return next;
}

/** Replaces an element by its children. */
export function unwrap(el: DomElement): void {
  const parent = el.parentNode;
  if (!parent) return;
  while (el.firstChild) parent.insertBefore(el.firstChild, el);
  el.remove();
}

/** Whitespace-collapsed text of a node. */
export function textOf(node: DomNode): string {
  return (node.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** Characters of link text (whitespace-collapsed) under `el`. */
export function linkTextLength(el: DomElement): number {
  let length = 0;
  for (const a of Array.from(el.getElementsByTagName("a"))) length += textOf(a).length;
  return length;
}
