// HTML to Markdown: turndown with ATX headings, fenced code that keeps its language, and the GFM plugin's tables,
// strikethrough and task lists. Tables are prepared so that every data table renders as a GFM table.
import TurndownService from "turndown";
import { strikethrough, tables, taskListItems } from "@joplin/turndown-plugin-gfm";
import type { DomDocument, DomElement } from "./dom.ts";
import { ELEMENT_NODE, renameElement, textOf, unwrap } from "./dom.ts";
import { codeLanguage, codeText } from "./code.ts";
import type { Fence } from "./fence.ts";
import { closesFence, fenceOpening } from "./fence.ts";

const TASK_ATTR = "data-trove-task";

/**
 * Replaces task-list checkboxes with a marker element. Must run before Readability, which deletes every <input>;
 * the marker's text is a readable stand-in even if some later step drops the attribute.
 */
export function markTaskCheckboxes(doc: DomDocument, root: DomElement): void {
  for (const input of Array.from(root.querySelectorAll("input[type=checkbox]"))) {
    const parent = input.parentElement;
    const inItem =
      parent?.localName.toLowerCase() === "li" ||
      (parent?.parentElement?.localName.toLowerCase() === "li" && /^(label|span|p)$/i.test(parent.localName));
    if (!inItem) continue;
    const checked = input.hasAttribute("checked");
    const marker = doc.createElement("span");
    marker.setAttribute(TASK_ATTR, checked ? "x" : " ");
    marker.appendChild(doc.createTextNode(checked ? "☑" : "☐"));
    input.replaceWith(marker);
  }
}

/** Markdown of `root`'s contents. `root` is consumed: it is rewritten in place and must not be reused. */
export function toMarkdown(doc: DomDocument, root: DomElement): string {
  prepareTables(doc, root);
  // <source> and <track> say nothing in Markdown, and turndown keeps the whitespace around void elements: a
  // <picture>'s sources indented its image line into a code block.
  for (const el of Array.from(root.querySelectorAll("source, track"))) el.remove();
  // linkedom splits text at every character reference ("a &lt;b&gt;" is three text nodes), and turndown escapes
  // each node as if it started a line: merged, "<b>" is escaped as text once, not mangled piecewise.
  root.normalize();
  // turndown clones its input before working on it; our tree is already a throwaway, and the clone would lose the
  // per-table `rows` lists defined in prepareTables.
  Object.defineProperty(root, "cloneNode", { value: () => root, configurable: true });
  return tidy(service().turndown(root as unknown as TurndownService.Node));
}

let turndown: TurndownService | null = null;

function service(): TurndownService {
  if (turndown) return turndown;
  const td = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    fence: "```",
    bulletListMarker: "-",
    // "*" works inside a word ("Trink*glas*"), where "_" stays a literal underscore.
    emDelimiter: "*",
    strongDelimiter: "**",
    hr: "---",
    linkStyle: "inlined",
  });
  td.use([tables, strikethrough, taskListItems]);
  // Article text such as "the <img> element" must stay text: turndown leaves "<" alone, so Markdown would read
  // it as raw HTML and a renderer would drop it.
  const escape = td.escape.bind(td);
  // An underscore between letters or digits can neither open nor close emphasis, so it stays bare: escaped, it
  // would show its backslash inside a bare URL, which GFM renderers link as written (".../teensy\_loader").
  td.escape = (text: string) =>
    escape(text)
      .replace(/<(?=[A-Za-z/!?])/g, "\\<")
      .replace(/(?<=[\p{L}\p{N}])\\_(?=[\p{L}\p{N}])/gu, "_");
  td.remove(["script", "style", "noscript", "template", "iframe", "object", "embed"]);
  td.remove(["button", "select", "textarea", "input"]);
  td.remove((node) => node.nodeName.toLowerCase() === "svg");
  // Rules added later win over earlier ones (turndown checks them newest first).
  td.addRule("codeBlock", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => fencedCode(node as unknown as DomElement),
  });
  td.addRule("heading", {
    filter: ["h1", "h2", "h3", "h4", "h5", "h6"],
    // An ATX heading is one line: line breaks inside the heading would end it early.
    replacement: (content, node) => {
      const text = content.replace(/\s*\n\s*/g, " ").trim();
      return text ? `\n\n${"#".repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : "";
    },
  });
  td.addRule("emphasis", { filter: ["em", "i"], replacement: (content, node, options) => delimited(content, node, options.emDelimiter ?? "*") });
  td.addRule("strong", { filter: ["strong", "b"], replacement: (content, node, options) => delimited(content, node, options.strongDelimiter ?? "**") });
  td.addRule("link", {
    filter: (node) => node.nodeName === "A" && !!(node as unknown as DomElement).getAttribute("href"),
    replacement: (content, node) => {
      const el = node as unknown as DomElement;
      const href = (el.getAttribute("href") ?? "").trim();
      // Links without text (icons, emptied image links) and script links would be noise in Markdown.
      if (!content.trim()) return "";
      if (/^javascript:/i.test(href)) return content;
      const title = el.getAttribute("title")?.replace(/\s+/g, " ").trim();
      const dest = href.replace(/([<>()])/g, "\\$1").replace(/ /g, "%20");
      return `[${content}](${dest}${title ? ` "${title.replace(/"/g, '\\"')}"` : ""})`;
    },
  });
  td.addRule("taskMarker", {
    filter: (node) => node.nodeName === "SPAN" && (node as unknown as DomElement).hasAttribute(TASK_ATTR),
    replacement: (_content, node) => {
      const box = (node as unknown as DomElement).getAttribute(TASK_ATTR) === "x" ? "[x]" : "[ ]";
      return /^\s/.test(node.nextSibling?.textContent ?? "") ? box : `${box} `;
    },
  });
  // "- item" and "1. item" with continuation lines indented to the text, rather than turndown's "-   item".
  td.addRule("listItem", {
    filter: "li",
    replacement: (content, node, options) => {
      const parent = node.parentNode as unknown as DomElement | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start"));
        const index = Array.prototype.indexOf.call(parent.children, node);
        prefix = `${(Number.isFinite(start) && parent.hasAttribute("start") ? start : 1) + index}. `;
      }
      const paragraph = /\n$/.test(content);
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "") + (paragraph ? "\n" : "");
      return prefix + body.replace(/\n/g, `\n${" ".repeat(prefix.length)}`) + (node.nextSibling ? "\n" : "");
    },
  });
  turndown = td;
  return td;
}

// Emphasis only where a renderer will read the delimiters as emphasis (CommonMark's flanking rules): around
// text with letters or digits, with the whitespace and line breaks at its ends set outside ("<b>Title<br></b>"),
// and not where a delimiter would sit between punctuation and a letter ("**33%**of"). Elsewhere the text goes
// plain: asterisks shown as text are worse than a lost emphasis.
function delimited(content: string, node: TurndownService.Node, delimiter: string): string {
  const [, lead = "", core = "", trail = ""] = /^(\s*)([\s\S]*?)(\s*)$/.exec(content) ?? [];
  if (!/[\p{L}\p{N}]/u.test(core) || core.includes("\n\n")) return content;
  const before = lead ? " " : (node.previousSibling?.textContent ?? "").slice(-1);
  const after = trail ? " " : (node.nextSibling?.textContent ?? "").charAt(0);
  const punct = (c: string) => /[\p{P}\p{S}]/u.test(c);
  const free = (c: string) => c === "" || /\s/.test(c) || punct(c);
  if ((punct(core.charAt(0)) && !free(before)) || (punct(core.slice(-1)) && !free(after))) return content;
  return lead + delimiter + core + delimiter + trail;
}

/** Escapes text so Markdown renders it literally. */
export function escapeMarkdown(text: string): string {
  return service().escape(text);
}

function fencedCode(pre: DomElement): string {
  const code = codeText(pre);
  if (!code.trim()) return "";
  // The fence must be longer than any run of backticks at the start of a code line.
  let size = 3;
  for (const run of code.match(/^`{3,}/gm) ?? []) size = Math.max(size, run.length + 1);
  const fence = "`".repeat(size);
  return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
}

// Blocks a GFM table cell cannot hold (a cell with a heading makes its table a layout table).
const CELL_BLOCKS = "ul, ol, blockquote, hr, pre";
// A cell this long is a page column, not data.
const LAYOUT_CELL_TEXT = 1000;

/**
 * Data tables become GFM tables: block content in their cells is flattened to inline text with line breaks.
 * Layout tables (role=presentation, holding a table, one row or one column, no text, headings or page-length
 * text in a cell) are unwrapped into plain blocks, which is how they read.
 */
function prepareTables(doc: DomDocument, root: DomElement): void {
  // Cells and rows cut loose from their table (Readability can keep one cell of a layout table) are blocks.
  for (const part of Array.from(root.querySelectorAll("td, th, tr, thead, tbody, tfoot, caption"))) {
    if (!part.closest("table")) renameElement(doc, part, "div");
  }
  for (const table of Array.from(root.getElementsByTagName("table"))) {
    const rows = rowsOf(table);
    if (isLayoutTable(table, rows)) {
      unwrapTable(doc, table);
      continue;
    }
    for (const cell of Array.from(table.querySelectorAll("td, th"))) flattenCell(doc, cell);
    // Text and comments between a row's cells are not rendered by browsers (the parser moves such text out of the
    // table), and the GFM plugin indexes a row's childNodes as if they were all cells.
    for (const row of rows) {
      for (const node of Array.from(row.childNodes)) if (node.nodeType !== ELEMENT_NODE) node.remove();
    }
    // linkedom has no HTMLTableElement.rows, which the GFM plugin reads.
    Object.defineProperty(table, "rows", { value: rows, configurable: true });
  }
}

function rowsOf(table: DomElement): DomElement[] {
  const head: DomElement[] = [];
  const body: DomElement[] = [];
  const foot: DomElement[] = [];
  for (const child of Array.from(table.children)) {
    const tag = child.localName.toLowerCase();
    if (tag === "tr") body.push(child);
    else if (tag === "thead" || tag === "tbody" || tag === "tfoot") {
      const list = tag === "thead" ? head : tag === "tfoot" ? foot : body;
      for (const tr of Array.from(child.children)) if (tr.localName.toLowerCase() === "tr") list.push(tr);
    }
  }
  return [...head, ...body, ...foot];
}

function isLayoutTable(table: DomElement, rows: DomElement[]): boolean {
  const role = table.getAttribute("role")?.toLowerCase();
  if (role === "presentation" || role === "none" || table.getAttribute("datatable") === "0") return true;
  if (table.getElementsByTagName("table").length > 0) return true;
  // One row or one column is a layout device (or a list), and reads fine as blocks.
  if (rows.length <= 1 || Math.max(...rows.map((r) => r.children.length)) <= 1) return true;
  const cells = Array.from(table.querySelectorAll("td, th"));
  if (!cells.some((cell) => textOf(cell))) return true; // spacer and image-grid tables
  return cells.some((cell) => cell.querySelector("h1, h2, h3, h4, h5, h6") || textOf(cell).length > LAYOUT_CELL_TEXT);
}

function unwrapTable(doc: DomDocument, table: DomElement): void {
  for (const el of Array.from(table.querySelectorAll("caption, thead, tbody, tfoot, tr, td, th"))) {
    // Nested tables keep their own structure; only this table's parts are unwrapped.
    if (el.closest("table") !== table) continue;
    const tag = el.localName.toLowerCase();
    if (tag === "caption" || tag === "td" || tag === "th") renameElement(doc, el, "div");
    else unwrap(el);
  }
  renameElement(doc, table, "div");
}

function flattenCell(doc: DomDocument, cell: DomElement): void {
  for (const el of Array.from(cell.querySelectorAll(CELL_BLOCKS))) {
    if (!el.parentNode) continue;
    const tag = el.localName.toLowerCase();
    if (tag === "hr") {
      el.replaceWith(doc.createElement("br"));
    } else if (tag === "pre") {
      const code = doc.createElement("code");
      code.appendChild(doc.createTextNode(codeText(el)));
      el.replaceWith(code);
    } else if (tag === "ul" || tag === "ol") {
      for (const li of Array.from(el.children)) {
        if (li.localName.toLowerCase() !== "li") continue;
        li.insertBefore(doc.createTextNode("• "), li.firstChild);
        if (li.nextElementSibling) li.appendChild(doc.createElement("br"));
        renameElement(doc, li, "span");
      }
      renameElement(doc, el, "span");
    } else {
      renameElement(doc, el, "p"); // blockquote
    }
  }
}

// turndown leaves runs of blank lines where removed blocks were (outside code they collapse to one) and
// trailing spaces that would read as a hard line break at the end of a paragraph.
function tidy(markdown: string): string {
  const out: string[] = [];
  let open: Fence | null = null;
  for (const line of markdown.split("\n")) {
    if (open) {
      if (closesFence(line, open)) open = null;
      out.push(line);
      continue;
    }
    open = fenceOpening(line);
    if (line.trim() || open) {
      out.push(line);
    } else if (out[out.length - 1] !== "") {
      if (out.length) out[out.length - 1] = (out[out.length - 1] ?? "").trimEnd();
      out.push("");
    }
  }
  return out.join("\n").trim();
}
