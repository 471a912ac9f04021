import { parseHTML } from "linkedom";
import { Readability } from "@mozilla/readability";
import { JSDOM } from "jsdom";
import { readdirSync, readFileSync } from "node:fs";
const dir = "/work/shared/corpus/pages";
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function bag(ws: string[]) { const m = new Map<string, number>(); for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1); return m; }
function pr(got: string, exp: string) {
  const g = bag(words(got)), e = bag(words(exp)); let inter = 0, gt = 0, et = 0;
  for (const [w, c] of e) { et += c; inter += Math.min(c, g.get(w) ?? 0); }
  for (const c of g.values()) gt += c;
  return { r: et ? inter / et : 1, p: gt ? inter / gt : 1 };
}
const which = process.argv[2] ?? "linkedom";
let tot = 0, sr = 0, sp = 0, n = 0;
for (const site of readdirSync(dir).sort()) {
  const html = readFileSync(`${dir}/${site}/source.html`, "utf8");
  const expHtml = readFileSync(`${dir}/${site}/expected.html`, "utf8");
  const expText = parseHTML(expHtml).document.documentElement?.textContent ?? "";
  const t0 = performance.now();
  let doc: any;
  if (which === "jsdom") doc = new JSDOM(html, { url: "http://fakehost/test/page.html" }).window.document;
  else { doc = parseHTML(html).document; }
  let art: any; let err = "";
  try { art = new Readability(doc, { keepClasses: true }).parse(); } catch (e) { err = String(e).slice(0, 80); }
  const dt = performance.now() - t0; tot += dt;
  const text = art?.textContent ?? "";
  const { r, p } = pr(text, expText); sr += r; sp += p; n++;
  console.log(site.padEnd(30), dt.toFixed(0).padStart(6), "ms r", r.toFixed(3), "p", p.toFixed(3), err, JSON.stringify(art?.title));
}
console.log("total", tot.toFixed(0), "avg r", (sr / n).toFixed(3), "p", (sp / n).toFixed(3));
