// Cutting Markdown to a byte budget at a block boundary: whole paragraphs, lists, tables and code blocks are kept
// or dropped, never split mid-word, and a code fence is never left open.
import type { Fence } from "./fence.ts";
import { closesFence, fenceOpening } from "./fence.ts";

const encoder = new TextEncoder();
const bytes = (s: string): number => encoder.encode(s).length;

export interface Capped {
  markdown: string;
  truncated: boolean;
}

/** `markdown` if it fits in `capBytes` UTF-8 bytes, else its longest prefix of whole blocks that does. */
export function capMarkdown(markdown: string, capBytes: number): Capped {
  // Byte length is at most 3x the UTF-16 length for text (4 bytes per surrogate pair = 2 units), so short
  // strings skip the encoding.
  if (markdown.length * 3 <= capBytes || bytes(markdown) <= capBytes) return { markdown, truncated: false };
  const blocks = splitBlocks(markdown);
  const kept: string[] = [];
  let used = 0;
  for (const block of blocks) {
    const cost = bytes(block) + (kept.length ? 2 : 0); // "\n\n" between blocks
    if (used + cost > capBytes) {
      // Whole blocks are preferred, unless that would throw away much of the budget (one huge paragraph
      // after a heading, say): then the block that does not fit is cut inside.
      const left = capBytes - used - (kept.length ? 2 : 0);
      if (kept.length === 0 || left >= Math.max(4096, capBytes / 4)) kept.push(cutBlock(block, left));
      break;
    }
    kept.push(block);
    used += cost;
  }
  return { markdown: kept.join("\n\n").trimEnd(), truncated: true };
}

// Blocks are separated by blank lines outside fenced code; a fenced block is one block whatever it contains.
function splitBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let open: Fence | null = null;
  const flush = (): void => {
    if (current.length) blocks.push(current.join("\n"));
    current = [];
  };
  for (const line of markdown.split("\n")) {
    if (open) {
      current.push(line);
      if (closesFence(line, open)) open = null;
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    open = fenceOpening(line);
    current.push(line);
  }
  flush();
  return blocks;
}

// Cuts one oversized block by whole lines, else the first line at its last space, else at a character boundary
// (scripts written without spaces). A code block keeps its opening fence and gets its closing one back.
function cutBlock(block: string, capBytes: number): string {
  let lines = block.split("\n");
  const fence = fenceOpening(lines[0] ?? "");
  if (!fence) return keepLines(lines, capBytes) ?? cutText(block, capBytes);
  const open = lines[0] ?? "";
  lines = lines.slice(1);
  if (lines.length && closesFence(lines[lines.length - 1] ?? "", fence)) lines = lines.slice(0, -1);
  const close = `${open.match(/^\s*/)?.[0] ?? ""}${fence.char.repeat(fence.length)}`;
  const budget = capBytes - bytes(open) - bytes(close) - 2;
  const body = keepLines(lines, budget) ?? cutText(lines[0] ?? "", budget);
  return `${open}\n${body}\n${close}`;
}

function keepLines(lines: string[], budget: number): string | null {
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = bytes(line) + (kept.length ? 1 : 0);
    if (used + cost > budget) break;
    kept.push(line);
    used += cost;
  }
  return kept.length ? kept.join("\n") : null;
}

function cutText(text: string, capBytes: number): string {
  // The longest prefix within the budget, by binary search on its length; never between a surrogate pair.
  let lo = 0;
  let hi = Math.min(text.length, capBytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(text.slice(0, mid), "utf8") <= capBytes) lo = mid;
    else hi = mid - 1;
  }
  let end = lo;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  const prefix = text.slice(0, end);
  const space = prefix.search(/\s\S*$/);
  return (space > 0 ? prefix.slice(0, space) : prefix).trimEnd();
}
