// Image credits inside captions. A caption that describes the article's image stays (it is part of what the
// article says); the credit line set into it does not ("… Foto: J. Smith", "… (REUTERS/Jane Doe)", a <cite> or
// <small> with the agency). Part of the score stage: run on the page before Readability picks the article.
import type { DomDocument, DomElement, DomText } from "./dom.ts";
import { TEXT_NODE, isElement, textOf } from "./dom.ts";
import { words } from "./clean.ts";

const CAPTIONS = "figcaption, .wp-caption-text, [class*=caption]";
// A caption unnamed: the block right after an image (or a link or box holding only an image), or a block of its
// own inside a <figure>.
const IMAGES = "img, picture";
const MAX_CAPTION = 600;
const MAX_UNNAMED_CAPTION = 300;
// Elements inside a caption that hold its credit.
const CREDIT_CHILD_TAGS = new Set(["cite", "small"]);
const CREDIT_CHILD_WORDS = new Set([
  "credit", "credits", "copyright", "source", "sources", "photographer", "author", "byline", "subcaption", "rights",
]);
// A credit label in the languages of the web at large, with its colon ("Foto:", "Crédito:"), or a copyright sign;
// then the name(s) that follow to the end of the caption.
const LABEL =
  "foto|fotos|photo|photos|bild|bilder|image|imagen|imagem|immagine|fotografía|fotografia|bildquelle|bildnachweis|credit|credits|quelle|source|fuente|crédito|créditos|crédit|fonte|źródło|zdjęcie|fot\\.|kuva|bron";
const TRAILING_LABELLED = new RegExp(`(^|[\\s.;,|/–—-])[\\s(\\[]*(?:(?:${LABEL})\\s*:|©|\\(c\\)|copyright\\b)[^:]{1,80}$`, "iu");
// "(REUTERS/Jane Doe)", "[AFP / Getty]": a parenthesised end with a slash names an agency and a photographer.
const TRAILING_AGENCY = /\s*[([][^()[\]]{2,80}\/[^()[\]]{2,80}[)\]]\s*$/u;
// A caption that is nothing but "Name/Agency" ("Judy Eddy/WENN.com", "AFP / Jane Doe"): no sentence in it.
const BARE_AGENCY = /^[^.!?:;/()[\]]{2,40}\/[^!?:;/()[\]]{2,40}$/u;
const BARE_AGENCY_WORDS = 6;

/** Strips credits from the captions of `doc`; a caption left without text is removed. Returns captions changed. */
export function stripCaptionCredits(doc: DomDocument): number {
  let changed = 0;
  for (const [caption, named] of captions(doc)) {
    if (!caption.parentElement) continue;
    const text = textOf(caption);
    if (!text || text.length > (named ? MAX_CAPTION : MAX_UNNAMED_CAPTION)) continue;
    if (BARE_AGENCY.test(text) && text.split(" ").length <= BARE_AGENCY_WORDS && !caption.querySelector(IMAGES)) {
      caption.remove();
      changed++;
      continue;
    }
    let touched = false;
    // Credit children only in captions named as such: beside an unnamed image the block may be an author box.
    for (const child of named ? Array.from(caption.querySelectorAll("*")) : []) {
      if (!child.parentElement || !isCreditChild(child)) continue;
      child.remove();
      touched = true;
    }
    if (trimTrailingCredit(caption)) touched = true;
    if (!touched) continue;
    changed++;
    if (!textOf(caption) && !caption.querySelector("img, picture, video")) caption.remove();
  }
  return changed;
}

// The captions, each once with whether it is named as one: the named ones, then the unnamed.
function captions(doc: DomDocument): Map<DomElement, boolean> {
  const found = new Map<DomElement, boolean>(Array.from(doc.body.querySelectorAll(CAPTIONS), (c) => [c, true]));
  const add = (el: DomElement): void => {
    if (!found.has(el) && !el.querySelector(IMAGES) && !/^(img|picture)$/i.test(el.localName)) found.set(el, false);
  };
  for (const image of Array.from(doc.body.querySelectorAll(IMAGES))) {
    // The image, or the link or box around it that holds nothing else (two levels up at most).
    let holder: DomElement = image;
    for (let i = 0; i < 2 && holder.parentElement && holder.parentElement !== doc.body && !textOf(holder.parentElement); i++) {
      if (holder.parentElement.localName.toLowerCase() === "figure") break;
      holder = holder.parentElement;
    }
    if (holder.nextElementSibling) add(holder.nextElementSibling);
  }
  for (const figure of Array.from(doc.body.getElementsByTagName("figure"))) {
    for (let child = figure.firstElementChild; child; child = child.nextElementSibling) add(child);
  }
  return found;
}

function isCreditChild(el: DomElement): boolean {
  if (CREDIT_CHILD_TAGS.has(el.localName.toLowerCase())) return true;
  const names = `${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`.split(/\s+/).filter(Boolean);
  return names.some((n) => words(n).some((w) => CREDIT_CHILD_WORDS.has(w)));
}

// Cuts a credit at the end of the caption's last text node; true when something was cut.
function trimTrailingCredit(caption: DomElement): boolean {
  const last = lastText(caption);
  if (!last) return false;
  const before = last.data;
  let after = before.replace(TRAILING_AGENCY, "");
  if (after === before) {
    const m = TRAILING_LABELLED.exec(before);
    if (m) after = before.slice(0, m.index + (m[1]?.length ?? 0));
  }
  if (after === before) return false;
  last.data = after.replace(/[\s|/–—-]+$/u, "");
  return true;
}

function lastText(el: DomElement): DomText | null {
  let found: DomText | null = null;
  const visit = (node: DomElement): void => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === TEXT_NODE && (c.textContent ?? "").trim()) found = c as DomText;
      else if (isElement(c)) visit(c);
    }
  };
  visit(el);
  return found;
}
