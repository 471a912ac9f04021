// Finding a highlight in an item's Markdown by its text and the text around it (prefix/suffix anchors).
// Linear in the content whatever the input: occurrences of the text and how far each anchor matches around every
// occurrence come from three Z-algorithm passes (O(n + m) character comparisons each), so a one-character text
// with 2,000-character anchors in 512 KB of that same character costs the same as any other highlight.

export interface Anchor {
  text: string;
  prefix?: string;
  suffix?: string;
}

/** Counts the character comparisons made, so tests can hold the work to a linear bound. */
export interface LocateStats {
  comparisons: number;
}

/**
 * Offsets (UTF-16, end exclusive) of the occurrence of `text` whose surroundings best match the anchors: the most
 * prefix characters (counted back from the text) plus suffix characters (counted on from it); the first wins ties.
 */
export function locate(markdown: string, a: Anchor, stats: LocateStats = { comparisons: 0 }): { start: number; end: number } | null {
  if (!a.text || a.text.length > markdown.length) return null;
  const found = occurrences(markdown, a.text, stats);
  if (found.length === 0) return null;
  const prefix = a.prefix ?? "";
  const suffix = a.suffix ?? "";
  let best = found[0]!;
  if (found.length > 1 && (prefix || suffix)) {
    // after[j]: how many characters of the suffix match from j on; before[k]: how many of the prefix, read
    // backwards, match backwards from the character before (n - k).
    const after = suffix ? matchLengths(suffix, markdown, false, stats) : null;
    const before = prefix ? matchLengths(prefix, markdown, true, stats) : null;
    const n = markdown.length;
    const score = (at: number) => (before && at > 0 ? before[n - at]! : 0) + (after && at + a.text.length < n ? after[at + a.text.length]! : 0);
    let bestScore = score(best);
    for (const at of found) {
      const s = score(at);
      if (s > bestScore) (best = at), (bestScore = s);
    }
  }
  return { start: best, end: best + a.text.length };
}

/** Start offsets of every occurrence of `needle` in `hay`, in order. */
function occurrences(hay: string, needle: string, stats: LocateStats): number[] {
  const lengths = matchLengths(needle, hay, false, stats);
  const out: number[] = [];
  for (let i = 0; i + needle.length <= hay.length; i++) if (lengths[i] === needle.length) out.push(i);
  return out;
}

/**
 * For every position i of `text`, the length of the longest common prefix of text[i..] and `pattern`, capped at the
 * pattern's length; with `reversed` both strings are read from their ends (index i then counts from the end).
 * Z-algorithm over pattern + text: at most 2 (m + n) comparisons.
 */
function matchLengths(pattern: string, text: string, reversed: boolean, stats: LocateStats): Int32Array {
  const m = pattern.length;
  const n = text.length;
  const s = new Uint16Array(m + n);
  for (let i = 0; i < m; i++) s[i] = pattern.charCodeAt(reversed ? m - 1 - i : i);
  for (let i = 0; i < n; i++) s[m + i] = text.charCodeAt(reversed ? n - 1 - i : i);
  const z = new Int32Array(m + n);
  let left = 0;
  let right = 0;
  let comparisons = 0;
  for (let i = 1; i < s.length; i++) {
    let k = i < right ? Math.min(right - i, z[i - left]!) : 0;
    while (i + k < s.length && s[k] === s[i + k]) {
      k++;
      comparisons++;
    }
    comparisons++; // the comparison that ended the run
    z[i] = k;
    if (i + k > right) (left = i), (right = i + k);
  }
  stats.comparisons += comparisons;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.min(z[m + i]!, m);
  return out;
}

/** Anchors cut from the Markdown around an offset range (when a caller gives offsets but no anchors). */
export function anchorsAt(markdown: string, start: number, end: number, width = 32): { prefix: string; suffix: string } {
  return { prefix: markdown.slice(Math.max(0, start - width), start), suffix: markdown.slice(end, end + width) };
}
