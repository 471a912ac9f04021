// What a reader sees of HTML: its visible text, and its links with their text. One tokenizer pass each (see
// html-scan.ts), cut off once the caller's budget of characters is reached.
import { scanHtml, stop } from "./html-scan.ts";

/** Elements whose text is not shown. */
const hidden = new Set(["script", "style", "template"]);

/** Visible text collected with whitespace runs made single spaces, up to a budget of characters. */
class TextBuffer {
  private readonly parts: string[] = [];
  private length = 0;
  private space = true;

  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.length >= this.max;
  }

  /** A tag between words: words either side of it are apart. */
  gap(): void {
    this.space = true;
  }

  add(text: string): void {
    // In windows: a text node of megabytes costs only what the budget takes (whitespace runs may span windows).
    for (let at = 0; at < text.length && !this.full; ) {
      const window = text.slice(at, at + Math.max(4_096, this.max - this.length));
      at += window.length;
      this.append(window.replace(/\s+/g, " "));
    }
  }

  private append(part: string): void {
    const words = part.trim();
    if (words === "") {
      if (part !== "") this.space = true;
      return;
    }
    const out = ((this.space || part.startsWith(" ")) && this.length > 0 ? ` ${words}` : words).slice(0, this.max - this.length);
    this.parts.push(out);
    this.length += out.length;
    this.space = part.endsWith(" ");
  }

  toString(): string {
    return this.parts.join("");
  }
}

/**
 * The visible text of HTML (the bodies of <script>, <style> and <template> left out), whitespace runs as single
 * spaces, trimmed, at most `maxChars` characters: reading stops there.
 */
export function visibleText(html: string, maxChars: number): string {
  const out = new TextBuffer(maxChars);
  let skipping: string | undefined;
  scanHtml(html, {
    open(name) {
      if (skipping === undefined && hidden.has(name)) skipping = name;
      out.gap();
    },
    close(name) {
      if (name === skipping) skipping = undefined;
      out.gap();
    },
    text(text) {
      if (skipping === undefined) out.add(text);
      return out.full ? stop : undefined;
    },
  });
  return out.toString();
}

export interface Anchor {
  /** The address as written (entities decoded, trimmed). */
  href: string;
  /** Its visible text, whitespace made single, at most `anchorTextChars` characters. */
  text: string;
}

/** Characters of an anchor's text kept: enough for any "view in browser" or "confirm" wording. */
export const anchorTextChars = 2_000;

/**
 * Calls `visit` with each http(s) anchor in document order until it answers `stop`. An anchor ends at its </a>
 * or at the next <a> (a missing end tag does not make it swallow the rest of the document).
 */
export function eachAnchor(html: string, visit: (a: Anchor) => typeof stop | void): void {
  let current: { href: string; text: TextBuffer } | undefined;
  let skipping: string | undefined;
  const finish = (): typeof stop | void => {
    const a = current;
    current = undefined;
    if (a && /^https?:\/\//i.test(a.href)) return visit({ href: a.href, text: a.text.toString() });
  };
  scanHtml(html, {
    attributes: ["href"],
    open(name, attrs) {
      if (name === "a") {
        if (finish() === stop) return stop;
        current = { href: (attrs.href ?? "").trim(), text: new TextBuffer(anchorTextChars) };
        return;
      }
      if (skipping === undefined && hidden.has(name)) skipping = name;
      current?.text.gap();
    },
    close(name) {
      if (name === "a") return finish();
      if (name === skipping) skipping = undefined;
      current?.text.gap();
    },
    text(text) {
      if (current && skipping === undefined) current.text.add(text);
    },
  });
  finish();
}
