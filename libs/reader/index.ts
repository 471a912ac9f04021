// Progressive reading of a Markdown document, for items and notes alike: an overview (counts and headings),
// search windows around matching lines, one exact line range, or the whole text. Lines are 1-based, inclusive.
import { AppError } from "@trove/errors";

export const limits = {
  sliceLines: 200,
  sliceBytes: 32 * 1024,
  searchLines: 200,
  searchBytes: 16 * 1024,
};

const byteLength = (s: string) => Buffer.byteLength(s, "utf8");

export interface Heading {
  level: number;
  text: string;
  line: number;
}

/** The longest start of `text` within `maxBytes` UTF-8 bytes, cut on a character boundary. */
export function cutBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  // Every character is at least one byte: a short enough string needs no encoding to know it fits.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false };
  let end = Math.max(0, maxBytes);
  // Back off continuation bytes (10xxxxxx) to the start of the character the limit falls in.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: buf.subarray(0, end).toString("utf8"), truncated: true };
}

export function splitLines(markdown: string): string[] {
  return markdown === "" ? [] : markdown.split(/\r?\n/);
}

/** Counts and the heading outline (ATX headings outside code fences). */
export function overview(markdown: string) {
  const lines = splitLines(markdown);
  const headings: Heading[] = [];
  let fence: string | null = null;
  lines.forEach((line, i) => {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      return;
    }
    if (fence !== null) return;
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) headings.push({ level: h[1]!.length, text: h[2]!, line: i + 1 });
  });
  const words = markdown.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)?.length ?? 0;
  return { lineCount: lines.length, wordCount: words, charCount: markdown.length, bytes: byteLength(markdown), headings };
}

/** Parses `start:end` (1-based, inclusive). */
export function parseRange(raw: string): { start: number; end: number } {
  const m = /^(\d+):(\d+)$/.exec(raw.trim());
  if (!m) throw new AppError("validation_failed", "lines must be start:end", { fields: { lines: "expected start:end, e.g. 1:50" } });
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start < 1 || end < start) {
    throw new AppError("validation_failed", "lines must be 1-based with start <= end", { fields: { lines: "start must be >= 1 and <= end" } });
  }
  return { start, end };
}

/** One exact range; 413 range_too_large past 200 lines or 32 KB. A range past the end is cut at the end. */
export function sliceLines(markdown: string, raw: string) {
  const { start, end } = parseRange(raw);
  const lines = splitLines(markdown);
  if (end - start + 1 > limits.sliceLines) {
    throw new AppError("range_too_large", `at most ${limits.sliceLines} lines per read; ask for a smaller range`, {
      maxLines: limits.sliceLines,
      maxBytes: limits.sliceBytes,
    });
  }
  const last = Math.min(end, lines.length);
  const text = start <= last ? lines.slice(start - 1, last).join("\n") : "";
  if (byteLength(text) > limits.sliceBytes) {
    throw new AppError("range_too_large", `lines ${start}:${end} hold more than ${limits.sliceBytes} bytes; ask for fewer lines`, {
      maxLines: limits.sliceLines,
      maxBytes: limits.sliceBytes,
    });
  }
  return { startLine: start, endLine: Math.max(start - 1, last), lineCount: lines.length, text };
}

export interface SearchWindow {
  startLine: number;
  endLine: number;
  matchLines: number[];
  text: string;
}

/** Windows of `contextLines` around lines containing `q` (case-insensitive), merged when they touch,
 * at most `limit` windows and 200 lines / 16 KB in total; `truncated` says when more matched. */
export function searchWindows(markdown: string, q: string, opts: { contextLines?: number; limit?: number } = {}) {
  const lines = splitLines(markdown);
  const needle = q.toLowerCase();
  const context = opts.contextLines ?? 2;
  const maxWindows = opts.limit ?? 20;
  const hits: number[] = [];
  lines.forEach((line, i) => {
    if (line.toLowerCase().includes(needle)) hits.push(i);
  });
  const windows: SearchWindow[] = [];
  let totalLines = 0;
  let totalBytes = 0;
  let truncated = false;
  for (const hit of hits) {
    const from = Math.max(0, hit - context);
    const to = Math.min(lines.length - 1, hit + context);
    const prev = windows.at(-1);
    if (prev && from <= prev.endLine) {
      // Touching the previous window: extend it.
      const extra = lines.slice(prev.endLine, to + 1);
      const extraText = extra.join("\n");
      if (totalLines + extra.length > limits.searchLines || totalBytes + byteLength(extraText) + 1 > limits.searchBytes) {
        truncated = true;
        break;
      }
      if (extra.length > 0) prev.text += `\n${extraText}`;
      totalLines += extra.length;
      totalBytes += extra.length > 0 ? byteLength(extraText) + 1 : 0;
      prev.endLine = Math.max(prev.endLine, to + 1);
      prev.matchLines.push(hit + 1);
      continue;
    }
    if (windows.length >= maxWindows) {
      truncated = true;
      break;
    }
    const text = lines.slice(from, to + 1).join("\n");
    if (totalLines + (to - from + 1) > limits.searchLines || totalBytes + byteLength(text) > limits.searchBytes) {
      truncated = true;
      break;
    }
    totalLines += to - from + 1;
    totalBytes += byteLength(text);
    windows.push({ startLine: from + 1, endLine: to + 1, matchLines: [hit + 1], text });
  }
  return { q, matchCount: hits.length, windows, truncated };
}
