import { extractHtml } from "../index.ts";
import { loadCorpus, corpusDir, markdownToText } from "../test/quality.ts";
import { wordTokens } from "../content.ts";
const site = process.argv[2]!;
const p = loadCorpus(corpusDir()).find((x) => x.site === site)!;
const ex = extractHtml(p.html, { url: p.url });
const bag = (t: string[]) => { const m = new Map<string, number>(); for (const w of t) m.set(w, (m.get(w) ?? 0) + 1); return m; };
const got = bag(wordTokens(markdownToText(ex.markdown))), want = bag(wordTokens(p.expectedText));
const missing: string[] = [], extra: string[] = [];
for (const [w, n] of want) { const d = n - (got.get(w) ?? 0); if (d > 0) missing.push(`${w}×${d}`); }
for (const [w, n] of got) { const d = n - (want.get(w) ?? 0); if (d > 0) extra.push(`${w}×${d}`); }
console.log("MISSING", missing.join(" ").slice(0, 1500));
console.log("EXTRA", extra.join(" ").slice(0, 1500));
if (process.argv[3]) console.log(ex.markdown);
