// The extraction pipeline peers use, as the yardstick of bench/extract.ts: jsdom with the page URL, Readability
// with its defaults, turndown + the same GFM plugin, no cleaning of our own. It lives here because jsdom is a
// dev dependency of this package only.
import { createRequire } from "node:module";
import { Readability } from "@mozilla/readability";
import TurndownService from "turndown";
import { gfm } from "@joplin/turndown-plugin-gfm";

// Loaded untyped on purpose: importing jsdom's declarations pulls the DOM lib into the whole program, which
// clashes with Bun's globals in other packages (`tsc` checks the repository as one program).
interface JsdomWindow {
  document: unknown;
  close(): void;
}
interface Jsdom {
  JSDOM: new (html: string, opts: { url: string; virtualConsole: unknown }) => { window: JsdomWindow };
  VirtualConsole: new () => unknown;
}
const { JSDOM, VirtualConsole } = createRequire(import.meta.url)("jsdom") as Jsdom;

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" }).use(gfm);
// jsdom's CSS parser reports every stylesheet it cannot read; that is noise here.
const quiet = new VirtualConsole();

/** Markdown and title of `html` the way jsdom + Readability + turndown produce them ("" when Readability fails). */
export function peerExtract(html: string, url: string): { markdown: string; title: string } {
  const dom = new JSDOM(html, { url, virtualConsole: quiet });
  try {
    const article = new Readability(dom.window.document as never).parse();
    return { markdown: article?.content ? turndown.turndown(article.content) : "", title: article?.title ?? "" };
  } catch {
    return { markdown: "", title: "" };
  } finally {
    dom.window.close();
  }
}
