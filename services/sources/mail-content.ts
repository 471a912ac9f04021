// What a newsletter says about itself: its "view in browser" address (the item's URL) and, in a provider's setup
// mail, the confirmation code or link the user needs. Plain scans of bounded text (a message is at most the size
// cap), no patterns a sender could make slow: every expression here is linear in its input.

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

export const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

interface Anchor {
  href: string;
  text: string;
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " };
export const decodeEntities = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => entities[e]!);
// A tag ends at the next ">" before any other "<": linear even on a "<<<<" flood.
const dropTags = (html: string) => html.replace(/<[^<>]*>/g, " ");

/** Visible text of HTML: <style> and <script> bodies dropped, tags removed (one pass each, linear). */
export function stripTags(html: string): string {
  const lower = html.toLowerCase();
  let out = "";
  let at = 0;
  for (;;) {
    const style = lower.indexOf("<style", at);
    const script = lower.indexOf("<script", at);
    const open = style < 0 ? script : script < 0 ? style : Math.min(style, script);
    if (open < 0) break;
    const close = lower.indexOf(open === style ? "</style" : "</script", open);
    out += html.slice(at, open) + " ";
    if (close < 0) return decodeEntities(dropTags(out));
    at = close;
  }
  return decodeEntities(dropTags(out + html.slice(at)));
}

/** The http(s) anchors of an HTML document with their visible text (a scan with indexOf: linear in the HTML). */
export function anchorsOf(html: string): Anchor[] {
  const out: Anchor[] = [];
  const lower = html.toLowerCase();
  let close = -1;
  for (let open = lower.indexOf("<a", 0); open >= 0; ) {
    const next = lower.indexOf("<a", open + 2);
    const tagEnd = lower.indexOf(">", open);
    if (tagEnd < 0) break;
    if (!/\s/.test(lower[open + 2] ?? "")) {
      open = next;
      continue;
    }
    // No "</a" left: remember that (html.length), or every later anchor would search to the end again.
    if (close < tagEnd) {
      close = lower.indexOf("</a", tagEnd);
      if (close < 0) close = html.length;
    }
    const textEnd = Math.min(close, next < 0 ? html.length : next);
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html.slice(open, tagEnd));
    const url = decodeEntities((href?.[1] ?? href?.[2] ?? href?.[3] ?? "").trim());
    if (/^https?:\/\//i.test(url)) out.push({ href: url, text: stripTags(html.slice(tagEnd + 1, Math.max(tagEnd + 1, textEnd)).slice(0, 2_000)) });
    open = next;
  }
  return out;
}

/**
 * The message's web version: an anchor whose text is one of the phrases above, else the RFC 5064 `Archived-At`
 * header. List-Post and List-Archive name the list (a posting address, the whole archive), not this message: used
 * as an item URL they would fold every issue into one item.
 */
export function viewOnlineLink(html: string, archivedAt: string | undefined): string | null {
  for (const a of anchorsOf(html)) {
    const text = fold(a.text);
    if (text.length <= 80 && viewOnlinePhrases.some((p) => text.includes(p))) return a.href;
  }
  const archived = archivedAt?.trim().replace(/^<|>$/g, "");
  return archived && /^https?:\/\//i.test(archived) ? archived : null;
}

export interface FoundConfirmation {
  code: string | null;
  link: string | null;
}

/** A confirmation or verification code ("Confirmation code: 123456789", "Your verification code is 4821"). */
const codePattern = /\b(?:confirmation|verification|verify|security)\s+code(?:\s+is)?\s*[:#-]?\s*([A-Za-z0-9][A-Za-z0-9-]{3,15})\b/i;
const linkWords = /confirm|verif|validate|activate/i;

/** A provider's confirmation (Gmail's forwarding verification, a list's double opt-in) found in a message, or null. */
export function findConfirmation(subject: string, text: string, html: string): FoundConfirmation | null {
  const plain = `${subject}\n${text || stripTags(html)}`;
  const code = codePattern.exec(plain)?.[1] ?? null;
  let link = anchorsOf(html).find((a) => linkWords.test(a.href) || linkWords.test(a.text))?.href ?? null;
  if (!link) link = [...plain.matchAll(/https?:\/\/[^\s<>"')]+/g)].map((m) => m[0]).find((u) => linkWords.test(u)) ?? null;
  if (code === null && link === null) return null;
  return { code, link };
}
