import { extractHtml } from "../index.ts";
import { loadCorpus, corpusDir, score, average } from "../test/quality.ts";
const pages = loadCorpus(corpusDir());
console.log(corpusDir(), pages.length);
const scores = [];
let total = 0;
for (const p of pages) {
  const t0 = performance.now();
  const ex = extractHtml(p.html, { url: p.url });
  const dt = performance.now() - t0; total += dt;
  const s = score(ex.markdown, ex.title, p); scores.push(s);
  console.log(p.site.padEnd(30), dt.toFixed(0).padStart(5), "r", s.recall.toFixed(3), "p", s.precision.toFixed(3), s.titleCorrect ? "" : `TITLE ${JSON.stringify(ex.title)}`, ex.size, ex.content.media.length);
}
console.log(total.toFixed(0), average(scores));
