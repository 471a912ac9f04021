// One pass over HTML with htmlparser2's tokenizer: tags, the attributes asked for, and decoded text, in document
// order. No tree and no stack of open elements (the parser's stack makes each unmatched end tag cost its depth):
// the work is linear in the input and the memory is what the handlers keep.
import { Tokenizer } from "htmlparser2";

/** What a handler may answer to end the scan early. */
export const stop = "stop";
type Next = void | typeof stop;

export interface HtmlHandlers {
  /** Attribute names (lower case) to hand to `open`; others are skipped unread. */
  attributes?: readonly string[];
  /** A start tag (name in lower case) with the asked-for attributes, entities decoded; first occurrence wins. */
  open?(name: string, attrs: Readonly<Record<string, string>>): Next;
  /** An end tag, name in lower case (also right after `open` for a self-closing tag). */
  close?(name: string): Next;
  /** Text between tags, entities decoded; raw text of <script> and <style> included. */
  text?(text: string): Next;
}

/** Characters kept of one attribute value: longer ones are cut (no address or rel worth reading is longer). */
const maxAttributeChars = 16_384;

const fromCodePoint = (cp: number) => (cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\ufffd");

export function scanHtml(html: string, h: HtmlHandlers): void {
  const wanted = new Set(h.attributes ?? []);
  let tag = "";
  let attrs: Record<string, string> = {};
  let attrName: string | undefined;
  let attrValue = "";
  let stopped = false;
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      ontext: (start, end) => stopped || emit(h.text?.(html.slice(start, end))),
      ontextentity: (cp) => stopped || emit(h.text?.(fromCodePoint(cp))),
      onopentagname: (start, end) => {
        tag = html.slice(start, end).toLowerCase();
        attrs = {};
      },
      onattribname: (start, end) => {
        const name = html.slice(start, end).toLowerCase();
        attrName = wanted.has(name) && !Object.hasOwn(attrs, name) ? name : undefined;
        attrValue = "";
      },
      onattribdata: (start, end) => {
        if (attrName !== undefined && attrValue.length < maxAttributeChars) attrValue += html.slice(start, Math.min(end, start + maxAttributeChars));
      },
      onattribentity: (cp) => {
        if (attrName !== undefined && attrValue.length < maxAttributeChars) attrValue += fromCodePoint(cp);
      },
      onattribend: () => {
        if (attrName !== undefined) attrs[attrName] = attrValue.slice(0, maxAttributeChars);
        attrName = undefined;
      },
      onopentagend: () => stopped || emit(h.open?.(tag, attrs)),
      onselfclosingtag: () => {
        if (!stopped) emit(h.open?.(tag, attrs));
        if (!stopped) emit(h.close?.(tag));
      },
      onclosetag: (start, end) => stopped || emit(h.close?.(html.slice(start, end).toLowerCase())),
      oncdata: () => {},
      oncomment: () => {},
      ondeclaration: () => {},
      onprocessinginstruction: () => {},
      onend: () => {},
    },
  );
  // Once stopped, the tokenizer may still finish the token it is in: the handlers hear nothing more.
  function emit(next: Next): void {
    if (next === stop) {
      stopped = true;
      tokenizer.pause();
    }
  }
  tokenizer.write(html);
  if (!stopped) tokenizer.end();
}
