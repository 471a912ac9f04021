// autoSummarize: an extractive summary computed offline (no model, no network): the three sentences of the item's
// own text that score highest by TF-IDF over its sentences, in their original order. The HTML read, the text and
// the sentences are capped, and sentences are found by one pass over the text: a bounded few milliseconds.
import { escapeHtml } from "@trove/feeds";
import { visibleText } from "./html-text.ts";

const maxChars = 50_000;
/** HTML read for it: markup around 50,000 characters of text (a mail can be 10 MB). */
const maxHtmlChars = 200_000;
const maxSentences = 400;
const summarySentences = 3;

/** Words too common to say what a sentence is about (English, French, German, Spanish: the usual newsletters). */
const stopwords = new Set(
  ("the and for are but not you all any can her was one our out has his how its may new now see two who did get him let put say she too use that with have this will your from they " +
    "been more when were what which their there would about into than them then these some could other also just only over such very most after first where being those " +
    "les des une est pas que qui dans pour sur avec par plus ses der die das und ist nicht mit den dem ein eine auf für von los las del por con una para como")
    .split(" "),
);

const wordsOf = (s: string) => (s.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*/gu) ?? []).filter((w) => w.length > 2 && !stopwords.has(w));

const isStop = (c: string | undefined) => c === "." || c === "!" || c === "?";

/**
 * Sentences of whitespace-collapsed text: each ends with a run of `.`, `!` or `?` followed by a space or the end
 * (so "3.5" and "e.g.x" do not end one); what follows the last is one more. One pass, at most `max` sentences.
 */
export function sentencesOf(text: string, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length && out.length < max; i++) {
    if (!isStop(text[i])) continue;
    let end = i + 1;
    while (isStop(text[end])) end++;
    if (end === text.length || text[end] === " ") {
      const sentence = text.slice(start, end).trim();
      if (sentence !== "") out.push(sentence);
      start = end;
    }
    i = end - 1;
  }
  const rest = text.slice(start).trim();
  if (rest !== "" && out.length < max) out.push(rest);
  return out;
}

/** The summary of a piece of HTML, or null when it has too few sentences to need one (it is its own summary). */
export function summarize(html: string): string | null {
  const text = visibleText(html.slice(0, maxHtmlChars), maxChars);
  // Sentences of fewer than 3 content words are skipped; the cap counts the sentences kept.
  const sentences: string[] = [];
  for (const s of sentencesOf(text, maxChars)) {
    if (wordsOf(s).length >= 3) sentences.push(s);
    if (sentences.length >= maxSentences) break;
  }
  if (sentences.length <= summarySentences) return null;
  const words = sentences.map(wordsOf);
  const df = new Map<string, number>();
  const tf = new Map<string, number>();
  for (const ws of words) {
    for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const n = sentences.length;
  // A sentence's score: how much of the text's recurring, distinctive vocabulary it holds, per sqrt of its length.
  const score = words.map((ws) => [...new Set(ws)].reduce((sum, w) => sum + tf.get(w)! * Math.log(1 + n / df.get(w)!), 0) / Math.sqrt(ws.length));
  const top = score
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, summarySentences)
    .sort((a, b) => a.i - b.i);
  return top.map((t) => sentences[t.i]).join(" ");
}

/** An HTML fragment with its summary above it as a quoted "Summary:" paragraph (unchanged when there is none). */
export function withSummary(html: string, summary: string | null): string {
  return summary === null ? html : `<blockquote><p><strong>Summary:</strong> ${escapeHtml(summary)}</p></blockquote>${html}`;
}
