// An item's Markdown as HTML a page can show: rendered by marked, then sanitised by DOMPurify (no scripts, no
// inline handlers, no forms or frames); links open in a new tab without the opener, images load lazily.
import DOMPurify from "dompurify";
import { marked } from "marked";

/** Where an image loads from: a new address, or null to show its description instead. */
export type ImageRewrite = (src: string) => string | null;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
  if (node.tagName === "IMG") {
    node.setAttribute("loading", "lazy");
    node.setAttribute("referrerpolicy", "no-referrer");
  }
});

export function renderMarkdown(markdown: string, images?: ImageRewrite): string {
  const html = marked.parse(markdown, { async: false, gfm: true }) as string;
  const clean = DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"], FORBID_ATTR: ["style"] });
  return images ? rewriteImages(clean, images) : clean;
}

// On a DOMParser document, which loads nothing: an image the reader should not load is never requested.
function rewriteImages(html: string, rewrite: ImageRewrite): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  for (const img of [...doc.querySelectorAll("img")]) {
    img.removeAttribute("srcset");
    const to = rewrite(img.getAttribute("src") ?? "");
    if (to !== null) {
      img.setAttribute("src", to);
      continue;
    }
    const shown = doc.createElement("span");
    shown.className = "image-off";
    shown.textContent = `[${img.getAttribute("alt") || "image"}]`;
    img.replaceWith(shown);
  }
  return doc.body.innerHTML;
}
