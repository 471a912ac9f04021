import { parseHTML } from "linkedom";
for (const h of ["", "<p>hi <b>there</b></p>", "hello world", "<html><body><p>x</p></body></html>", "<!doctype html><title>T</title><p>para", "<div><p>unclosed <span>x</div></table><td>cell", "<head><title>A</title></head>text", "<html><p>no body</p></html>", "<!-- c --><html lang=en><head><title>A</title></head><body>b</body></html>", "<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><head><title>X</title></head><body><p>xhtml</p></body></html>"]) {
  const { document } = parseHTML(h);
  const de = document.documentElement;
  let body, head; try { body = document.body?.tagName; head = document.head?.tagName } catch (e) { body = "ERR" }
  console.log(JSON.stringify(h), "| docEl:", de?.tagName, "| body:", body, "| head:", head, "|", de?.outerHTML?.slice(0,200), "| kids", document.childNodes.length);
}
