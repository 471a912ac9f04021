// Scoring an extraction against the corpus: shared by corpus.test.ts and bench/extract.ts so both report the
// same numbers.
//
// Text: the Markdown is read back as plain text: image syntax dropped (expected.html's textContent has no alt
// text); link destinations, code-fence lines, ordered-list numbers and raw HTML tags dropped (their text kept);
// escapes undone. Both sides are tokenised with wordTokens (lower-cased runs of letters and digits, each
// Han/kana character a token of its own, so that Chinese and Japanese pages are not scored as one giant word
// per sentence) and compared as bags of words with multiplicity:
// overlap = sum over words of min(count in ours, count in expected);
// recall = overlap / expected tokens, precision = overlap / our tokens; page scores are averaged unweighted.
//
// Title: correct when the normalised titles (NFKC, lower case, curly quotes and dashes unified, whitespace
// collapsed) are equal, or when their word bags have an F1 of at least 0.8 (one word of a ten-word title may
// differ, a dropped " - Site Name" suffix on a short title may not).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseHTML } from "linkedom";
import { wordTokens } from "../content.ts";
import { mapProseLines } from "../fence.ts";

export interface CorpusPage {
  site: string;
  url: string;
  html: string;
  expectedText: string;
  expectedTitle: string;
}

export interface Score {
  recall: number;
  precision: number;
  titleCorrect: boolean;
}

/** The corpus folder as it sits beside the repository (…/shared/corpus/pages). */
/**
 * The shared corpus (never copied into the repository): TROVE_CORPUS_DIR when set (CI points it at the machine's
 * copy), else `shared/corpus` beside the checkout or beside any folder above it; null when there is none.
 */
export function findCorpus(): string | null {
  const given = process.env.TROVE_CORPUS_DIR;
  if (given) return existsSync(given) ? given : null;
  for (let dir = join(import.meta.dir, "..", "..", ".."); ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "corpus");
    if (existsSync(join(candidate, "pages")) || existsSync(join(candidate, "snippets"))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** The Readability test pages of the corpus (a path that does not exist when there is no corpus). */
export function corpusDir(): string {
  return join(findCorpus() ?? join(import.meta.dir, "..", "..", "..", "..", "shared", "corpus"), "pages");
}

export function loadCorpus(dir: string): CorpusPage[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .filter((site) => existsSync(join(dir, site, "source.html")))
    .map((site) => {
      const meta = JSON.parse(readFileSync(join(dir, site, "expected-metadata.json"), "utf8")) as {
        title?: string;
        url?: string;
      };
      const expectedHtml = readFileSync(join(dir, site, "expected.html"), "utf8");
      const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${expectedHtml}</body></html>`);
      return {
        site,
        url: meta.url ?? `https://${site}.example.test/`,
        html: readFileSync(join(dir, site, "source.html"), "utf8"),
        expectedText: (document.body.textContent as string | null) ?? "",
        expectedTitle: meta.title ?? "",
      };
    });
}

/** Markdown read back as the words a reader sees. */
export function markdownToText(markdown: string): string {
  // Tags and list numbers are stripped outside code only: "<module>" or "1." inside a code block is text.
  const prose = mapProseLines(markdown, (line) =>
    line.replace(/(?<!\\)<\/?[a-zA-Z][\w-]*(?:\s[^<>]*)?\/?>/g, " ").replace(/^(\s*(?:>\s*)*)\d+[.)](?=\s)/, "$1"),
  );
  return prose
    .join("\n")
    .replace(/!\[(?:\\.|[^\]\\])*\]\((?:\\.|[^()\s\\]|\([^)]*\))*(?:\s+"(?:\\.|[^"\\])*")?\)/g, " ")
    .replace(/\[((?:\\.|[^\]\\])*)\]\((?:\\.|[^()\s\\]|\([^)]*\))*(?:\s+"(?:\\.|[^"\\])*")?\)/g, "$1")
    .replace(/^\s*(`{3,}|~{3,})[^\n]*$/gm, " ")
    .replace(/\\([\\`*_{}[\]()#+\-.!<>~|])/g, "$1");
}

function bag(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Bag-of-words recall and precision of `ours` against `expected` (both plain text). */
function overlap(ours: string, expected: string): { recall: number; precision: number } {
  const got = bag(wordTokens(ours));
  const want = bag(wordTokens(expected));
  let common = 0;
  let wantTotal = 0;
  let gotTotal = 0;
  for (const [word, n] of want) {
    wantTotal += n;
    common += Math.min(n, got.get(word) ?? 0);
  }
  for (const n of got.values()) gotTotal += n;
  return { recall: wantTotal ? common / wantTotal : 1, precision: gotTotal ? common / gotTotal : wantTotal ? 0 : 1 };
}

function normaliseTitle(title: string): string {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″]/g, '"')
    .replace(/[‐‑‒–—―]/g, "-")
    .replace(/\s+/g, " ")
    .trim();
}

export function titleMatches(ours: string, expected: string): boolean {
  const a = normaliseTitle(ours);
  const b = normaliseTitle(expected);
  if (a === b) return true;
  const { recall, precision } = overlap(a, b);
  return recall + precision > 0 && (2 * recall * precision) / (recall + precision) >= 0.8;
}

export function score(markdown: string, title: string, page: CorpusPage): Score {
  const text = overlap(markdownToText(markdown), page.expectedText);
  return { ...text, titleCorrect: titleMatches(title, page.expectedTitle) };
}

export function average(scores: Score[]): { recall: number; precision: number; titleAccuracy: number } {
  const n = scores.length || 1;
  return {
    recall: scores.reduce((s, x) => s + x.recall, 0) / n,
    precision: scores.reduce((s, x) => s + x.precision, 0) / n,
    titleAccuracy: scores.filter((x) => x.titleCorrect).length / n,
  };
}
