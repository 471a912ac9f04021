import { extractHtml } from "../index.ts";
import { loadCorpus, corpusDir } from "../test/quality.ts";
const ps = loadCorpus(corpusDir());
const p = ps.find(p => p.site === "wikipedia-2")!;
for (let i = 0; i < 3; i++) { try { const e = extractHtml(p.html, { url: p.url }); console.log(i, e.size); } catch (e) { console.log(i, "ERR", String(e)); } }
