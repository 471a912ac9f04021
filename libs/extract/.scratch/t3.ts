import { parseHTML } from "linkedom";
const { document } = parseHTML("<html><body><p>x<svg><path/></svg><br></p><pre><code class='language-js'>a\n</code></pre></body></html>");
const p = document.querySelector("p")!;
console.log(p.nodeName, p.tagName, p.localName, document.querySelector("svg")!.nodeName, document.querySelector("br")!.nodeName, p.firstChild!.nodeName);
