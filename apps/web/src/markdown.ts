// An item's Markdown as HTML a page can show: rendered by marked, then sanitised by DOMPurify (no scripts, no
// inline handlers, no forms or frames); links open in a new tab without the opener, images load lazily.
import DOMPurify from "dompurify";
import { marked } from "marked";

/** Where an image loads from: a new address, or null not to load it (its description stays). */
export type ImageRewrite = (src: string) => string | null;

// Set only for the one synchronous sanitize call that asked for it. The hook runs on DOMPurify's inert document
// and only changes attributes, so nothing is parsed again after sanitising and an image that should not load is
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
    if (!rewrite) return;
    node.removeAttribute("srcset");
    const to = rewrite(node.getAttribute("src") ?? "");
    if (to !== null) node.setAttribute("src", to);
    else {
      node.removeAttribute("src");
      node.setAttribute("class", "image-off");
    }
  }
});

export function renderMarkdown(markdown: string, images?: ImageRewrite): string {
  const html = marked.parse(markdown, { async: false, gfm: true }) as string;
  rewrite = images ?? null;
  try {
    return DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"], FORBID_ATTR: ["style"] });
  } finally {
    rewrite = null;
  }
}
