// A document as the texts to embed: its title alone first, then overlapping windows of its body's words. The body
// is Markdown (as items store content); link targets, image addresses and markup are dropped first, since to the
// model they are noise. Pure and deterministic: the same document and options give the same chunks.

export interface ChunkOptions {
  /** Words per body window. */
  windowWords?: number;
  /** Words each window repeats from the one before (less than windowWords). */
  overlapWords?: number;
  /** Chunks per document, the title's included; the body past the last window is not embedded. */
  maxChunks?: number;
  /** UTF-16 code units per chunk; a window of long words ends early. */
  maxChars?: number;
  /** UTF-16 code units per word; a longer run without spaces (CJK, a hash, a URL) counts as several words. */
  maxWordChars?: number;
}

export interface Chunk {
  /** 0-based position in the document's chunks. */
  index: number;
  /** "title" for the title chunk (always index 0 when there is a title), "body" for a window. */
  kind: "title" | "body";
  text: string;
}

export const chunkDefaults = {
  windowWords: 160,
  overlapWords: 32,
  maxChunks: 32,
  maxChars: 2_000,
  maxWordChars: 40,
} as const satisfies Required<ChunkOptions>;

export function chunkDocument(doc: { title?: string | null; body?: string | null }, opts: ChunkOptions = {}): Chunk[] {
  const o = { ...chunkDefaults, ...opts };
  if (!(o.windowWords >= 1 && o.overlapWords >= 0 && o.overlapWords < o.windowWords && o.maxChunks >= 1 && o.maxWordChars >= 1 && o.maxChars >= o.maxWordChars * 2)) {
    throw new RangeError("chunkDocument: windowWords >= 1, 0 <= overlapWords < windowWords, maxChunks >= 1, maxChars >= 2 * maxWordChars");
  }
  const chunks: Chunk[] = [];
  const title = clamp(words(doc.title ?? "", o.maxWordChars).join(" "), o.maxChars);
  if (title) chunks.push({ index: 0, kind: "title", text: title });

  const body = words(plainText(doc.body ?? ""), o.maxWordChars);
  let start = 0;
  while (start < body.length && chunks.length < o.maxChunks) {
    // Take words up to windowWords, stopping before maxChars (a window always takes its first word).
    let end = start;
    let chars = 0;
    while (end < body.length && end - start < o.windowWords) {
      const add = body[end]!.length + (end > start ? 1 : 0);
      if (end > start && chars + add > o.maxChars) break;
      chars += add;
      end++;
    }
    chunks.push({ index: chunks.length, kind: "body", text: clamp(body.slice(start, end).join(" "), o.maxChars) });
    if (end >= body.length) break;
    // Step back by the overlap, but always forward by at least one word.
    start = Math.max(start + 1, end - o.overlapWords);
  }
  return chunks;
}

/** Markdown to the words a reader sees: images and link targets, code fences, HTML tags and markup characters go. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1") // image: keep its alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // link: keep its text
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, "") // reference definitions
    .replace(/<\/?[a-zA-Z][^>]*>/g, " ") // inline HTML
    .replace(/\bhttps?:\/\/\S+/g, " ") // bare URLs
    .replace(/^\s{0,3}(?:#{1,6}|>+|[-*+]|\d+[.)])\s+/gm, "") // heading, quote and list markers
    .replace(/```[^\n]*|~~~[^\n]*/g, " ") // fence lines' markers (the code itself stays)
    .replace(/[*_`~|]+/g, " "); // emphasis, code spans, tables
}

/** Whitespace-separated words, each at most `maxWordChars` UTF-16 code units; long runs split between graphemes
 * (between code points inside a grapheme longer than that), so never inside a surrogate pair. */
function words(text: string, maxWordChars: number): string[] {
  const out: string[] = [];
  for (const word of text.split(/\s+/u)) {
    if (!word) continue;
    if (word.length <= maxWordChars) {
      out.push(word);
      continue;
    }
    let piece = "";
    for (const { segment } of graphemes.segment(word)) {
      for (const part of segment.length > maxWordChars ? [...segment] : [segment]) {
        if (piece && piece.length + part.length > maxWordChars) {
          out.push(piece);
          piece = "";
        }
        piece += part;
      }
    }
    if (piece) out.push(piece);
  }
  return out;
}

const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });

/** `text` cut to at most `max` UTF-16 code units, never inside a surrogate pair. */
export function clamp(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
