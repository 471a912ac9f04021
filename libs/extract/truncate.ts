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
    if (used + cost > capBytes) break;
    kept.push(block);
    used += cost;
  }
  // A first block bigger than the whole budget is cut inside, so the result is never empty.
  if (kept.length === 0 && blocks[0] !== undefined) kept.push(cutBlock(blocks[0], capBytes));
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
  // Walk code points so a surrogate pair is never split.
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const size = bytes(ch);
    if (used + size > capBytes) break;
    used += size;
    end += ch.length;
  }
  const prefix = text.slice(0, end);
  const space = prefix.search(/\s\S*$/);
  return (space > 0 ? prefix.slice(0, space) : prefix).trimEnd();
}
