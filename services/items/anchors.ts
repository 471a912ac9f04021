// Finding a highlight in an item's Markdown by its text and the text around it (prefix/suffix anchors).

export interface Anchor {
  text: string;
  prefix?: string;
  suffix?: string;
}

/** Offsets (UTF-16, end exclusive) of the occurrence of `text` whose surroundings best match the anchors. */
export function locate(markdown: string, a: Anchor): { start: number; end: number } | null {
  if (!a.text) return null;
  let best: { start: number; score: number } | null = null;
  for (let at = markdown.indexOf(a.text); at !== -1; at = markdown.indexOf(a.text, at + 1)) {
    const score = commonSuffix(markdown.slice(Math.max(0, at - (a.prefix?.length ?? 0)), at), a.prefix ?? "") +
      commonPrefix(markdown.slice(at + a.text.length, at + a.text.length + (a.suffix?.length ?? 0)), a.suffix ?? "");
    if (!best || score > best.score) best = { start: at, score };
  }
  return best ? { start: best.start, end: best.start + a.text.length } : null;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** Anchors cut from the Markdown around an offset range (when a caller gives offsets but no anchors). */
export function anchorsAt(markdown: string, start: number, end: number, width = 32): { prefix: string; suffix: string } {
  return { prefix: markdown.slice(Math.max(0, start - width), start), suffix: markdown.slice(end, end + width) };
}
