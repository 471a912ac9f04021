// What a newsletter says about itself: its "view in browser" address (the item's URL) and, in a provider's setup
// mail, the confirmation code or link the user needs. HTML is read with a tokenizer (html-text.ts); every scan
// here is linear and reads a bounded prefix of the message.
import { eachAnchor, visibleText, type Anchor } from "./html-text.ts";
import { stop } from "./html-scan.ts";

/** Anchor texts that name a message's web version, folded (lower case, accents dropped), in several languages. */
const viewOnlinePhrases = [
  "view in browser", "view in your browser", "view this email in your browser", "view it in your browser", "view online",
  "view this email online", "view as a web page", "view as webpage", "view web version", "web version", "read online",
  "open in browser", "view in web browser", "trouble viewing this email",
  "im browser ansehen", "im browser anzeigen", "im browser offnen", "online ansehen", "online lesen", "webversion", "web-version",
  "voir en ligne", "version en ligne", "afficher dans le navigateur", "voir dans le navigateur", "version web", "lire en ligne",
  "ver en el navegador", "ver en linea", "ver online", "version web", "leer en linea", "ver no navegador", "visualizar no navegador",
  "visualizza nel browser", "visualizza online", "versione web", "leggi online", "bekijk in browser", "bekijk online", "in je browser bekijken",
  "visa i webblasaren", "zobacz w przegladarce",
];

/** Lower case, accents dropped, whitespace runs as single spaces, trimmed. */
export const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

/** Characters of a message's text (whitespace made single) looked at for a confirmation: setup mails are short. */
export const confirmationScanChars = 200_000;

const isViewOnline = (a: Anchor) => {
  const text = fold(a.text);
  return text.length <= 80 && viewOnlinePhrases.some((p) => text.includes(p));
};
const linkWords = /confirm|verif|validate|activate/i;
const isConfirmLink = (a: Anchor) => linkWords.test(a.href) || linkWords.test(a.text);

/** The first anchor naming the web version and the first confirming one, in one pass over the HTML. */
export function newsletterLinks(html: string): { viewOnline: string | null; confirm: string | null } {
  let viewOnline: string | null = null;
  let confirm: string | null = null;
  eachAnchor(html, (a) => {
    if (viewOnline === null && isViewOnline(a)) viewOnline = a.href;
    if (confirm === null && isConfirmLink(a)) confirm = a.href;
    return viewOnline !== null && confirm !== null ? stop : undefined;
  });
  return { viewOnline, confirm };
}

/**
 * The message's web version: an anchor whose text is one of the phrases above, else the RFC 5064 `Archived-At`
 * header. List-Post and List-Archive name the list (a posting address, the whole archive), not this message: used
 * as an item URL they would fold every issue into one item.
 */
export function viewOnlineLink(viewOnlineAnchor: string | null, archivedAt: string | undefined): string | null {
  if (viewOnlineAnchor !== null) return viewOnlineAnchor;
  const archived = archivedAt?.trim().replace(/^<|>$/g, "");
  return archived && /^https?:\/\//i.test(archived) ? archived : null;
}

export interface FoundConfirmation {
  code: string | null;
  link: string | null;
}

/**
 * A confirmation or verification code ("Confirmation code: 123456789", "Your verification code is 4821"), matched
 * in text whose whitespace runs are single spaces: every part of the pattern is bounded, so it is linear.
 */
const codePattern = /\b(?:confirmation|verification|verify|security) code(?: is)? ?[:#-]? ?([A-Za-z0-9][A-Za-z0-9-]{3,15})\b/i;
const bareUrl = /https?:\/\/[^\s<>"')]+/g;

/** A provider's confirmation (Gmail's forwarding verification, a list's double opt-in) found in a message, or null. */
export function findConfirmation(subject: string, text: string, html: string, anchorLink: string | null): FoundConfirmation | null {
  const body = text.trim() !== "" ? text.replace(/\s+/g, " ").slice(0, confirmationScanChars) : visibleText(html, confirmationScanChars);
  const plain = `${subject.slice(0, 1_000).replace(/\s+/g, " ")} ${body}`;
  const code = codePattern.exec(plain)?.[1] ?? null;
  let link = anchorLink;
  if (link === null) {
    for (const m of plain.matchAll(bareUrl)) {
      if (linkWords.test(m[0])) {
        link = m[0];
        break;
      }
    }
  }
  if (code === null && link === null) return null;
  return { code, link };
}
