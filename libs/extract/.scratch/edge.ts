import { extractHtml, extractText, ExtractError } from "../index.ts";
const cases: [string, string][] = [
  ["empty", ""],
  ["ws", "   \n  "],
  ["text only", "hello world"],
  ["fragment", "<p>hi <b>there</b></p>"],
  ["no body", "<html><head><title>T</title></head><p>para one</p></html>"],
  ["doctype title p", "<!doctype html><title>Hello | Site</title><p>para"],
  ["broken", "<div><p>unclosed <span>x</div></table><td>cell<tr><td>c2"],
  ["scripts only", "<html><body><script>var a=1</script></body></html>"],
  ["images only", "<html><body><img src='/a.png'></body></html>"],
  ["deep", "<div>".repeat(20000) + "deep text here" + "</div>".repeat(20000)],
  ["deep p", "<html><body>" + "<span>".repeat(50000) + "x" + "</body></html>"],
  ["binary", "\u0000\u0001\u0002PNG\u0000garbage<<<>>>"],
  ["comment only", "<!-- nothing -->"],
  ["frameset", "<html><frameset><frame src='a.html'></frameset></html>"],
  ["base relative", "<html><head><base href='/docs/'></head><body><p>See <a href='x.html'>x</a> and <img src='i.png'></p></body></html>"],
];
for (const [name, html] of cases) {
  const t0 = performance.now();
  try {
    const ex = extractHtml(html, { url: "https://site.test/a/b.html" });
    console.log(name.padEnd(16), (performance.now() - t0).toFixed(0).padStart(5), "ms", JSON.stringify(ex.title), JSON.stringify(ex.markdown.slice(0, 120)), ex.content.media.map(m => m.url), ex.content.items.main?.meta);
  } catch (e) {
    console.log(name.padEnd(16), (performance.now() - t0).toFixed(0).padStart(5), "ms", e instanceof ExtractError ? `ExtractError(${e.reason})` : `OTHER ${e}`);
  }
}
