// autoSummarize: an extractive summary computed here, offline (no model, no network): the three sentences of the
// item's own text that score highest by TF-IDF over its sentences, in their original order. The text is capped, so
// one summary costs a bounded few milliseconds on the service's thread.
import { escapeHtml } from "@trove/feeds";
import { stripTags } from "./mail-content.ts";

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

/** The summary of a piece of HTML, or null when it has too few sentences to need one (it is its own summary). */
export function summarize(html: string): string | null {
  const text = stripTags(html.slice(0, maxHtmlChars)).replace(/\s+/g, " ").trim().slice(0, maxChars);
  const sentences = (text.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [])
    .map((s) => s.trim())
    .filter((s) => wordsOf(s).length >= 3)
    .slice(0, maxSentences);
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
export function withSummary(html: string): string {
  const summary = summarize(html);
  return summary === null ? html : `<blockquote><p><strong>Summary:</strong> ${escapeHtml(summary)}</p></blockquote>${html}`;
}
