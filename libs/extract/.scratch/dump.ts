import { extractHtml } from "../index.ts";
import { loadCorpus, corpusDir } from "../test/quality.ts";
import { mkdirSync, writeFileSync } from "node:fs";
mkdirSync("out", { recursive: true });
for (const p of loadCorpus(corpusDir())) {
  const ex = extractHtml(p.html, { url: p.url });
  writeFileSync(`out/${p.site}.md`, `${JSON.stringify({ ...ex, markdown: undefined, content: { ...ex.content, items: undefined } }, null, 1)}\n\n${ex.markdown}`);
}
