import { parseHTML } from "linkedom";
const { document } = parseHTML("<html><body><table><tr><td>a</td></tr></table></body></html>");
const t = document.querySelector("table")!; const c = document.createElement("table");
console.log(Object.getPrototypeOf(t).constructor.name, Object.getPrototypeOf(t) === Object.getPrototypeOf(c));
const d2 = parseHTML("<table></table>").document;
console.log(Object.getPrototypeOf(d2.createElement("table")) === Object.getPrototypeOf(c));
