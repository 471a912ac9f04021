// Scoring against the snippet set of the shared corpus (snippets/: 705 pages, mostly not English, each with
// snippets a person marked as must-keep ("with") and must-drop ("without")), the way the trafilatura evaluation
// scores it: over all pages, a "with" snippet found in the extracted text is a true positive and missing a false
// negative; a "without" snippet present is a false positive and absent a true negative. Precision, recall and F1
// come from the totals. The extracted Markdown is rendered (marked) and read back as the text a reader sees, and
// both it and the snippets have their whitespace collapsed before the substring test.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { marked } from "marked";
import { decodeBody } from "@trove/webfetch";
import { findCorpus } from "./quality.ts";

export interface SnippetPage {
  file: string;
  url: string;
  html: string;
  title: string;
  with: string[];
  without: string[];
}

export interface SnippetCounts {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

/** The snippet set's folder, or null when the corpus is not beside the checkout. */
export function snippetDir(): string | null {
  const corpus = findCorpus();
  const dir = corpus ? join(corpus, "snippets") : null;
  return dir && existsSync(join(dir, "expected.json")) ? dir : null;
}

/** The pages of the snippet set, decoded the way a fetch decodes them (declared charset, else UTF-8 sniffing). */
export function loadSnippetPages(dir: string): SnippetPage[] {
  const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Record<
    string,
    { file: string; title?: string; with?: string[]; without?: string[] }
  >;
  const pages: SnippetPage[] = [];
  for (const [url, entry] of Object.entries(expected)) {
    const path = join(dir, "pages", entry.file);
    if (!existsSync(path)) continue;
    const { text } = decodeBody(new Uint8Array(readFileSync(path)), "text/html");
    pages.push({
      file: entry.file,
      url,
      html: text,
      title: entry.title ?? "",
      with: entry.with ?? [],
      without: entry.without ?? [],
    });
  }
  return pages.sort((a, b) => a.file.localeCompare(b.file));
}

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

/** The text a reader sees of `markdown`, whitespace collapsed; blocks are separated by a space. */
export function renderedText(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true }) as string;
  const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`);
  // Block boundaries become spaces, so words of adjacent blocks do not run together.
  for (const el of Array.from(document.body.querySelectorAll("p, li, h1, h2, h3, h4, h5, h6, td, th, pre, blockquote, br, tr, dt, dd")) as {
    appendChild(n: unknown): void;
  }[]) {
    el.appendChild(document.createTextNode(" "));
  }
  return collapse((document.body.textContent as string | null) ?? "");
}

/** TP/FN/FP/TN of one page's extracted Markdown. */
export function countSnippets(markdown: string, page: SnippetPage): SnippetCounts {
  const text = renderedText(markdown);
  const counts: SnippetCounts = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const s of page.with) {
    if (text.includes(collapse(s))) counts.tp++;
    else counts.fn++;
  }
  for (const s of page.without) {
    if (text.includes(collapse(s))) counts.fp++;
    else counts.tn++;
  }
  return counts;
}

export function sumCounts(all: SnippetCounts[]): SnippetCounts {
  return all.reduce((t, c) => ({ tp: t.tp + c.tp, fn: t.fn + c.fn, fp: t.fp + c.fp, tn: t.tn + c.tn }), {
    tp: 0,
    fn: 0,
    fp: 0,
    tn: 0,
  });
}

export function snippetScores(c: SnippetCounts): { precision: number; recall: number; f1: number; accuracy: number } {
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0;
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  const total = c.tp + c.fn + c.fp + c.tn;
  return { precision, recall, f1, accuracy: total ? (c.tp + c.tn) / total : 0 };
}
