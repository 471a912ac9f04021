// Generic removal of page furniture before Readability scores the page: things that are never article text
// (scripts, styles, embeds, form controls, hidden elements), page chrome (navigation, site header and footer,
// asides, dialogs, forms) and boxes whose class/id/aria-label name them as ads, share buttons, newsletter
// sign-ups, cookie banners or related-post lists.
import type { DomDocument, DomElement } from "./dom.ts";
import { linkTextLength, textOf, unwrap } from "./dom.ts";
import { TITLE_ATTR } from "./metadata.ts";

// Never content; Readability's scoring is also cheaper without them. <noscript> stays for Readability, which
// recovers lazy-loaded images from it; JSON-LD stays for its metadata.
const NEVER_CONTENT = new Set([
  "script", "style", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "canvas",
  "dialog", "button", "select", "textarea", "input",
  // Ruby annotations (furigana readings over kanji): in running text they would double the word (子こども).
  "rt", "rp",
]);

// Controls by ARIA role, as the form controls above by tag: their text is a label ("Bild anzeigen", "Show more").
// A box that large is content marked up as a control (a clickable card): left to the scoring pass.
const CONTROL_ROLES = new Set(["button", "switch", "checkbox", "radio", "slider", "spinbutton", "combobox", "searchbox", "textbox", "scrollbar"]);
const MAX_CONTROL_TEXT = 200;

// Page chrome by element or ARIA landmark role.
const CHROME_TAGS = new Set(["nav", "aside", "footer"]);
const CHROME_ROLES = new Set([
  "navigation", "banner", "contentinfo", "search", "complementary", "dialog", "alertdialog", "menubar", "menu",
]);

// Class/id words that name a box as furniture. Matched against whole words of a class or id (split on "-", "_",
// camelCase and digits), never as substrings: "shadow" or "download" must not read as "ad", "loaded" not as "ad".
const JUNK_WORDS = new Set([
  // advertising
  "ad", "ads", "advert", "adverts", "advertisement", "advertisements", "advertising", "adsbygoogle", "adsense",
  "adslot", "adunit", "adbox", "adbanner", "adblock", "doubleclick", "dfp", "taboola", "outbrain",
  // share and social buttons
  "share", "shares", "sharing", "sharebar", "sharethis", "addthis", "addtoany", "sharedaddy", "social", "socials",
  // newsletter and subscription boxes
  "newsletter", "newsletters", "subscribe", "subscription", "signup", "optin", "mailchimp",
  // cookie and consent banners
  "cookie", "cookies", "consent", "gdpr", "onetrust",
  // related and recommended posts, breadcrumbs
  "related", "recommended", "recommendations", "breadcrumb", "breadcrumbs",
  // paywall and membership prompts, ratings, disclaimers and affiliate notices, promotions, tag lists
  "paywall", "rating", "ratings", "disclaimer", "affiliate", "donate", "donation", "promo", "promotion", "notice",
  "tags", "tagcloud", "placeholder",
]);

// Only boxes are removed by name; inline elements (a link "social-link" inside a sentence) carry article words.
const BOX_TAGS = new Set([
  "div", "section", "aside", "ul", "ol", "li", "figure", "form", "p", "table", "ins", "dl", "header", "footer",
  "nav", "center", "details", "fieldset",
]);

// Furniture is small: above this much non-link text a box is content whatever its name says (a wrapper named
// "has-ads" around the whole article, a long "subscription-content" body).
const MAX_JUNK_TEXT = 1000;

// The box around a form: its own text (besides the form's) at most this long.
const FORM_BOX_TAGS = new Set(["div", "section", "aside", "p", "span"]);
const MAX_FORM_BOX_TEXT = 300;

// Paragraph text that makes a <noscript> inside the article the article's own text.
const MIN_NOSCRIPT_PROSE = 200;

// Containers of the article itself; nothing that holds one is removed.
const CONTENT_ROOTS = "article, main, [role=main], [itemprop~=articleBody]";

/** Where a removed box stood: its previous sibling and its parent (the scoring pass looks for its heading). */
export interface Removal {
  prev: DomElement | null;
  parent: DomElement | null;
}

/** Removes never-content elements, page chrome and named furniture from `doc` in place; returns where boxes were. */
export function removeJunk(doc: DomDocument, opts: { keepNoscript: boolean }): Removal[] {
  const removals: Removal[] = [];
  const root = doc.documentElement;
  if (!root) return removals;
  unwrapArticleNoscripts(doc);
  let el: DomElement | null = root;
  while (el) {
    if (isJunk(el, opts.keepNoscript) && !holdsTitle(el)) {
      const target = el.localName.toLowerCase() === "form" ? formBox(el) : el;
      const after = nextElement(target, root, true);
      if (BOX_TAGS.has(target.localName.toLowerCase())) {
        removals.push({ prev: target.previousElementSibling, parent: target.parentElement });
      }
      target.remove();
      el = after;
    } else {
      el = nextElement(el, root, false);
    }
  }
  return removals;
}

// A page that renders its article from a script template (Blogger) gives readers without JavaScript the same
// article in a <noscript> beside it, inside the article's container; Readability drops every <noscript>, so that
// one is opened up first. Other <noscript>s (a tracking pixel, "please enable JavaScript") stay as they were.
function unwrapArticleNoscripts(doc: DomDocument): void {
  for (const ns of Array.from(doc.getElementsByTagName("noscript"))) {
    if (!ns.parentElement?.closest(CONTENT_ROOTS)) continue;
    let prose = 0;
    for (const p of Array.from(ns.getElementsByTagName("p"))) prose += textOf(p).length;
    if (prose >= MIN_NOSCRIPT_PROSE) unwrap(ns);
  }
}

// The heading that shows the article's title (marked by the metadata stage) is never furniture, and neither is a
// box around it: a page may set its headline inside a "header" or a box named for sharing.
function holdsTitle(el: DomElement): boolean {
  return el.hasAttribute(TITLE_ATTR) || el.querySelector(`[${TITLE_ATTR}]`) !== null;
}

// A form is a search, a sign-up or a comment box, and the small box around it ("Get our newsletter: every
// morning the news that matters" + the form) is the same widget: the outermost box ancestor with little text of
// its own goes with it. The form alone when its parent holds more (an article with a search box inside).
function formBox(form: DomElement): DomElement {
  let box = form;
  for (let up = form.parentElement; up; up = up.parentElement) {
    const tag = up.localName.toLowerCase();
    if (!FORM_BOX_TAGS.has(tag) || containsContent(up) || up.querySelector("h1")) break;
    if (textOf(up).length - textOf(form).length > MAX_FORM_BOX_TEXT) break;
    box = up;
  }
  return box;
}

// Depth-first successor of `el` inside `root`; with `skipChildren` the subtree of `el` is passed over.
function nextElement(el: DomElement, root: DomElement, skipChildren: boolean): DomElement | null {
  if (!skipChildren && el.firstElementChild) return el.firstElementChild;
  let cur: DomElement | null = el;
  while (cur && cur !== root) {
    if (cur.nextElementSibling) return cur.nextElementSibling;
    cur = cur.parentElement;
  }
  return null;
}

function isJunk(el: DomElement, keepNoscript: boolean): boolean {
  const tag = el.localName.toLowerCase();
  if (tag === "html" || tag === "head" || tag === "body" || tag === "main" || tag === "article") return false;
  if (NEVER_CONTENT.has(tag)) return !isKept(el, tag);
  if (tag === "noscript") return !keepNoscript;
  if (el.parentElement?.localName.toLowerCase() === "head") return false;
  if (isHidden(el)) return true;
  if (isControl(el)) return true;
  if (isChrome(el, tag)) return !containsContent(el);
  // Forms are searches, sign-ups and comment boxes; a page wrapped whole in a <form> (ASP.NET) holds its text.
  if (tag === "form" || (BOX_TAGS.has(tag) && isNamedJunk(el))) {
    return !containsContent(el) && nonLinkTextLength(el) <= MAX_JUNK_TEXT;
  }
  return false;
}

// JSON-LD is the one script kept: Readability reads its metadata.
function isKept(el: DomElement, tag: string): boolean {
  return tag === "script" && el.getAttribute("type")?.toLowerCase() === "application/ld+json";
}

function isHidden(el: DomElement): boolean {
  if (el.hasAttribute("hidden")) return true;
  // Wikimedia marks its math fallback images aria-hidden but they are the visible rendering.
  if (el.getAttribute("aria-hidden") === "true" && !/fallback-image/.test(el.className || "")) return true;
  const style = el.getAttribute("style");
  return !!style && /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\s*(!important)?\s*(;|$)/i.test(style);
}

function isChrome(el: DomElement, tag: string): boolean {
  if (CHROME_TAGS.has(tag)) return true;
  const role = el.getAttribute("role")?.toLowerCase();
  if (role && CHROME_ROLES.has(role)) return true;
  if (el.getAttribute("aria-modal") === "true") return true;
  // A site header, not an article's own header (which holds its title and standfirst).
  if (tag === "header") return el.closest("article, main, [role=main]") === null && el.querySelector("h1") === null;
  return false;
}

function isControl(el: DomElement): boolean {
  const role = el.getAttribute("role");
  if (!role || !CONTROL_ROLES.has(role.trim().toLowerCase())) return false;
  return !containsContent(el) && textOf(el).length <= MAX_CONTROL_TEXT;
}

function isNamedJunk(el: DomElement): boolean {
  for (const cls of (el.getAttribute("class") ?? "").split(/\s+/)) if (cls && hasJunkWord(cls)) return true;
  const id = el.getAttribute("id");
  // Long ids are usually slugs of a heading ("sharing-data-with-social-networks"), not widget names, unless they
  // end in the widget's kind ("free-deals-newsletter").
  if (id && (words(id).length <= 3 ? hasJunkWord(id) : JUNK_WORDS.has(words(id).at(-1) ?? ""))) return true;
  const label = el.getAttribute("aria-label");
  return !!label && hasJunkWord(label);
}

function hasJunkWord(name: string): boolean {
  return words(name).some((w) => JUNK_WORDS.has(w));
}

/** The words of a class, id or label: split on separators, camelCase and letter/digit boundaries. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([a-zA-Z])(\d)|(\d)([a-zA-Z])/g, "$1$3 $2$4")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function containsContent(el: DomElement): boolean {
  return el.querySelector(CONTENT_ROOTS) !== null;
}

function nonLinkTextLength(el: DomElement): number {
  return textOf(el).length - linkTextLength(el);
}
