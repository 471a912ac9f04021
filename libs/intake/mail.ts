// One received message read once (mailparser), whatever its recipients: what every recipient inbox makes its item
// from. Attachments are read by the parser and dropped with the message.
import { textAsHtml } from "@trove/feeds";
import { simpleParser, type AddressObject } from "mailparser";
import { sha256 } from "./hash.ts";
import { findConfirmation, newsletterLinks, viewOnlineLink, type FoundConfirmation } from "./newsletter.ts";

export interface Letter {
  messageId: string | null;
  /** The dedupe key: the Message-ID, else a hash of the whole message. */
  key: string;
  from: string;
  /** The From header (name and address): the author smart tag rules look at. */
  author: string;
  subject: string;
  /** The HTML part, else the text as HTML paragraphs. */
  html: string;
  /** The web version (an anchor naming it, else Archived-At), or null. */
  url: string | null;
  confirmation: FoundConfirmation | null;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

export async function readMail(raw: Uint8Array, envelopeFrom: string): Promise<Letter> {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // No text made from the HTML part: mailparser's html-to-text keeps a stack of open elements that every
  // unmatched end tag searches, and gives up on deep nesting (dropping the part). The HTML is read here with a
  // tokenizer instead.
  const mail = await simpleParser(bytes, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
  const from = firstAddress(mail.from) ?? envelopeFrom;
  const messageId = mail.messageId ? clip(mail.messageId.trim(), 1_000) : null;
  const html = typeof mail.html === "string" && mail.html.trim() !== "" ? mail.html : textAsHtml(mail.text ?? "");
  const archivedAt = mail.headers.get("archived-at");
  const links = newsletterLinks(html);
  return {
    messageId,
    key: messageId ? `message-id:${messageId}` : `message-sha256:${sha256(bytes)}`,
    from: clip(from, 320),
    author: clip(mail.from?.text ?? from, 400),
    subject: clip(mail.subject?.trim() || "(no subject)", 1_000),
    html,
    url: viewOnlineLink(links.viewOnline, typeof archivedAt === "string" ? archivedAt : undefined),
    confirmation: findConfirmation(mail.subject ?? "", mail.text ?? "", html, links.confirm),
  };
}

function firstAddress(from: AddressObject | undefined): string | null {
  return from?.value.find((v) => v.address)?.address ?? null;
}
