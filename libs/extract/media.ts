// The images of an article: one absolute https URL chosen per <img>, written back into the element so the
// Markdown and the media list agree, tracking pixels and inline data dropped, entries deduplicated in order.
import type { DomElement } from "./dom.ts";
import type { MediaEntry } from "./types.ts";
import { resolveUrl } from "./document.ts";

// Lazy-loading scripts keep the real address here and put a placeholder in src.
const LAZY_ATTRS = ["data-src", "data-lazy-src", "data-original", "data-lazy", "data-hi-res-src"];

/** Picks each image's URL, removes images that have none or are tracking pixels, and lists the rest. */
export function collectMedia(root: DomElement, base: string): MediaEntry[] {
  const media: MediaEntry[] = [];
  const seen = new Set<string>();
  for (const img of Array.from(root.getElementsByTagName("img"))) {
    const url = isTrackingPixel(img) ? null : imageUrl(img, base);
    if (!url) {
      img.remove();
      continue;
    }
    img.setAttribute("src", url);
    for (const attr of ["srcset", "sizes", ...LAZY_ATTRS]) img.removeAttribute(attr);
    if (seen.has(url)) continue;
    seen.add(url);
    const entry: MediaEntry = {
      id: `m${media.length + 1}`,
      url,
      alt: clean(img.getAttribute("alt")),
      title: clean(img.getAttribute("title")),
    };
    const width = dimension(img.getAttribute("width"));
    const height = dimension(img.getAttribute("height"));
    if (width !== undefined) entry.width = width;
    if (height !== undefined) entry.height = height;
    media.push(entry);
  }
  return media;
}

function imageUrl(img: DomElement, base: string): string | null {
  const candidates: (string | null)[] = [];
  for (const attr of LAZY_ATTRS) candidates.push(img.getAttribute(attr));
  candidates.push(img.getAttribute("src"), bestFromSrcset(img.getAttribute("srcset")));
  const picture = img.parentElement?.localName.toLowerCase() === "picture" ? img.parentElement : null;
  for (const source of picture ? Array.from(picture.getElementsByTagName("source")) : []) {
    candidates.push(bestFromSrcset(source.getAttribute("srcset")));
  }
  for (const candidate of candidates) {
    // Template placeholders ("{{src}}") and stray text are not addresses.
    const url = candidate?.trim() && !/[\s{}]/.test(candidate.trim()) ? webUrl(candidate, base) : null;
    if (url) return url;
  }
  return null;
}

/**
 * An absolute https URL for an image reference, or null for data:, blob: and other non-web schemes.
 * http is upgraded to https rather than dropped: the API promises https image URLs, browsers already upgrade or
 * block http images on https pages (mixed content), and nearly every host that serves an image over http serves
 * it over https too. The rare http-only host loses that image's preview; the article keeps its place in the text.
 */
export function webUrl(ref: string, base: string): string | null {
  const resolved = resolveUrl(ref, base);
  if (!resolved) return null;
  if (resolved.startsWith("https://")) return resolved;
  if (resolved.startsWith("http://")) return `https://${resolved.slice("http://".length)}`;
  return null;
}

interface SrcsetCandidate {
  url: string;
  width: number;
  density: number;
}

/** The largest candidate of a srcset (by width descriptor, else pixel density). */
function bestFromSrcset(srcset: string | null): string | null {
  if (!srcset) return null;
  const candidates = parseSrcset(srcset);
  candidates.sort((a, b) => b.width - a.width || b.density - a.density);
  return candidates[0]?.url ?? null;
}

// The HTML srcset grammar, simplified: a URL runs to whitespace (a trailing comma ends a descriptor-less one), its
// descriptors run to the next comma. Splitting on "," alone would break CDN URLs such as ".../w_300,h_200/a.jpg".
function parseSrcset(srcset: string): SrcsetCandidate[] {
  const out: SrcsetCandidate[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && /[\s,]/.test(srcset[i] ?? "")) i++;
    if (i >= srcset.length) break;
    const start = i;
    while (i < srcset.length && !/\s/.test(srcset[i] ?? "")) i++;
    let url = srcset.slice(start, i);
    let descriptors = "";
    if (url.endsWith(",")) {
      url = url.replace(/,+$/, "");
    } else {
      const end = srcset.indexOf(",", i);
      descriptors = srcset.slice(i, end === -1 ? srcset.length : end);
      i = end === -1 ? srcset.length : end + 1;
    }
    const w = /(\d+)w\b/.exec(descriptors);
    const x = /([\d.]+)x\b/.exec(descriptors);
    if (url) out.push({ url, width: w ? Number(w[1]) : 0, density: x ? Number(x[1]) : 1 });
  }
  return out;
}

// A 1x1 (or 0x0) image is a beacon, whatever its URL.
function isTrackingPixel(img: DomElement): boolean {
  const style = img.getAttribute("style") ?? "";
  const width = dimension(img.getAttribute("width")) ?? cssPixels(style, "width");
  const height = dimension(img.getAttribute("height")) ?? cssPixels(style, "height");
  return width !== undefined && height !== undefined && width <= 1 && height <= 1;
}

function cssPixels(style: string, prop: string): number | undefined {
  const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*(\\d+(?:\\.\\d+)?)px`, "i").exec(style);
  return m ? Number(m[1]) : undefined;
}

// Only plain pixel values: "640" or "640px"; percentages and "auto" say nothing about the image.
function dimension(value: string | null): number | undefined {
  const m = value ? /^\s*(\d+)(?:px)?\s*$/i.exec(value) : null;
  return m ? Number(m[1]) : undefined;
}

function clean(value: string | null): string {
  return (value ?? "").replace(/\s+/g, " ").trim();
}
