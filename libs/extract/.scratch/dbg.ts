import { parseDocument } from "../document.ts";
import { removeJunk } from "../clean.ts";
import { readArticle } from "../readable.ts";
import { markTaskCheckboxes } from "../markdown.ts";
import { textOf } from "../dom.ts";
import { loadCorpus, corpusDir } from "../test/quality.ts";
const p = loadCorpus(corpusDir()).find(p => p.site === "hukumusume")!;
const doc = parseDocument(p.html, p.url);
markTaskCheckboxes(doc, doc.body); removeJunk(doc, { keepNoscript: true });
const art = readArticle(doc, textOf(doc.body).length)!;
for (const td of Array.from(art.element.querySelectorAll("td, th"))) {
  let n: any = td.parentNode; const chain = [];
  while (n && n.nodeName !== "TABLE") { chain.push(n.nodeName); n = n.parentNode; }
  if (!n) console.log("ORPHAN", td.outerHTML.slice(0, 200), chain.join(">"));
}
console.log("done");
