// Highlights in the rendered article: drawing saved ones as <mark> elements over the text they quote (found by
// their prefix and text, across element boundaries), and reading a selection as text with its prefix and suffix
// for a new one.

export interface Highlight {
  id: string;
  text: string;
  prefix: string;
  suffix: string;
  note: string;
}

const CONTEXT = 32;

interface Flat {
  text: string;
  nodes: { node: Text; start: number }[];
}

function flatten(root: Element): Flat {
  const nodes: Flat["nodes"] = [];
  let text = "";
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push({ node: n as Text, start: text.length });
    text += (n as Text).data;
  }
  return { text, nodes };
}

/** Wraps each highlight's text in a <mark data-highlight=id>; a highlight whose text is not found is skipped. */
export function drawHighlights(root: Element, highlights: Highlight[]): void {
  for (const h of highlights) {
    const flat = flatten(root);
    const at = locate(flat.text, h);
    if (at < 0) continue;
    wrap(flat, at, at + h.text.length, h.id, h.note);
  }
}

// Where the highlight's text starts: after its prefix when that is found, else its first occurrence.
function locate(text: string, h: Highlight): number {
  const tail = h.prefix.slice(-CONTEXT);
  if (tail) {
    const withPrefix = text.indexOf(tail + h.text);
    if (withPrefix >= 0) return withPrefix + tail.length;
  }
  return text.indexOf(h.text);
}

function wrap(flat: Flat, start: number, end: number, id: string, note: string): void {
  for (const { node, start: at } of flat.nodes) {
    const from = Math.max(start, at);
    const to = Math.min(end, at + node.data.length);
    if (from >= to) continue;
    let piece = node;
    if (from > at) piece = piece.splitText(from - at);
    if (to < at + node.data.length) piece.splitText(to - from);
    const mark = document.createElement("mark");
    mark.dataset.highlight = id;
    if (note) mark.title = note;
    piece.parentNode!.insertBefore(mark, piece);
    mark.appendChild(piece);
  }
}

/** The selected text inside `root` with a few characters before and after it, or null. */
export function selectionIn(root: Element): { text: string; prefix: string; suffix: string } | null {
  const sel = getSelection();
  if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
  const range = sel.getRangeAt(0);
  if (!root.contains(range.commonAncestorContainer)) return null;
  const text = range.toString();
  if (!text.trim()) return null;
  const before = document.createRange();
  before.setStart(root, 0);
  before.setEnd(range.startContainer, range.startOffset);
  const after = document.createRange();
  after.setStart(range.endContainer, range.endOffset);
  after.setEndAfter(root.lastChild ?? root);
  return { text, prefix: before.toString().slice(-CONTEXT), suffix: after.toString().slice(0, CONTEXT) };
}
