// An item's Markdown as HTML a page can show: rendered by marked, then sanitised by DOMPurify (no scripts, no
// inline handlers, no forms or frames); links open in a new tab without the opener, images load lazily.
import DOMPurify from "dompurify";
import { marked } from "marked";

/** Where an image loads from: a new address, or null not to load it (its description stays). */
export type ImageRewrite = (src: string) => string | null;

// Set only for the one synchronous sanitize call that asked for it. The hook runs on DOMPurify's inert document
// and only changes attributes, so nothing is parsed again after sanitising and a resource that should not load is
// never requested.
let rewrite: ImageRewrite | null = null;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
  if (node.tagName === "IMG") {
    node.setAttribute("loading", "lazy");
    node.setAttribute("referrerpolicy", "no-referrer");
  }
  if (rewrite) confine(node, rewrite);
});

/** Elements whose href is a link the reader follows, not something the page loads. */
const linkElements = new Set(["a", "area"]);
/** SVG elements whose href is an image the page loads. */
const svgImages = new Set(["image", "feimage"]);

/**
 * Every attribute that makes the page load something, as the reading mode allows: an image's address (img src,
 * video poster, table background, SVG image href) goes through `to`; candidate lists (srcset, a picture's
 * sources), media, external SVG references and url(...) values outside the document are dropped.
 */
function confine(el: Element, to: ImageRewrite): void {
  const tag = el.localName.toLowerCase();
  for (const attr of [...el.attributes]) {
    const name = attr.name.toLowerCase();
    if (name === "src" && tag === "img") {
      const image = to(attr.value);
      if (image !== null) attr.value = image;
      else {
        el.removeAttribute(attr.name);
        el.setAttribute("class", "image-off");
      }
    } else if (name === "src" || name === "srcset") {
      el.removeAttribute(attr.name);
    } else if (name === "poster" || name === "background") {
      replaceOrDrop(el, attr, to);
    } else if (name === "href" || name === "xlink:href") {
      if (linkElements.has(tag) || attr.value.trim().startsWith("#")) continue;
      if (svgImages.has(tag)) replaceOrDrop(el, attr, to);
      else el.removeAttribute(attr.name);
    } else if (loadsFromOutside(attr.value)) {
      el.removeAttribute(attr.name);
    }
  }
}

function replaceOrDrop(el: Element, attr: Attr, to: ImageRewrite): void {
  const image = to(attr.value);
  if (image !== null) attr.value = image;
  else el.removeAttribute(attr.name);
}

/**
 * True when a value (an SVG paint, filter, mask or marker) refers to anything but a fragment of this document
 * through url(...), or hides a function name behind a CSS escape. One pass of indexOf: linear in the value.
 */
function loadsFromOutside(value: string): boolean {
  const lower = value.toLowerCase();
  if (lower.includes("\\") && lower.includes("(")) return true;
  for (let i = lower.indexOf("url("); i !== -1; i = lower.indexOf("url(", i + 4)) {
    let j = i + 4;
    while (j < lower.length && " \t\n\r\f\"'".includes(lower[j]!)) j++;
    if (lower[j] !== "#") return true;
  }
  return false;
}

export function renderMarkdown(markdown: string, images?: ImageRewrite): string {
  const html = marked.parse(markdown, { async: false, gfm: true }) as string;
  rewrite = images ?? null;
  try {
    return DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"], FORBID_ATTR: ["style"] });
  } finally {
    rewrite = null;
  }
}
