// The Netscape bookmark file: what browsers, Raindrop, Karakeep, Linkwarden and Pinboard export.
//   <DT><H3>Folder</H3> <DL><p> <DT><A HREF=.. ADD_DATE=.. TAGS="a,b">Title</A> <DD>Description </DL><p>
// Read with htmlparser2's tokenizer (entities decoded, unclosed tags tolerated, a cut file read up to the cut).
//
// Folders become collections named by their full path below the browser's own roots, joined with " / "
// ("Dev / Rust"): nested folders are common and their leaf names repeat ("Misc", "Read later"), so the path keeps
// the user's organisation and two different "Misc" folders apart. The roots are not collections: Chrome writes
// the bookmarks bar as an H3 with PERSONAL_TOOLBAR_FOLDER="true" and its other roots' bookmarks at the top level;
// Firefox adds UNFILED_BOOKMARKS_FOLDER="true" ("Other Bookmarks"). Pocket's old HTML export (a list per <h1>,
// "Unread" and "Read Archive") reads here too.
import type { ImportParseResult } from "@trove/contracts";
import { Parser } from "htmlparser2";
import { EntryCollector, type EntryDraft } from "./collect.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { cleanText, decodeText } from "./text.ts";

interface Anchor {
  attrs: Record<string, string>;
  title: string;
}

/** A folder's collection name from its path, or undefined when every name is empty. */
export function folderPath(names: readonly string[]): string | undefined {
  const parts = names.map(cleanFolderName).filter((n) => n !== "");
  return parts.length > 0 ? parts.join(" / ") : undefined;
}

const cleanFolderName = (name: string) => cleanText(name).replace(/\s+/g, " ").trim();

/**
 * Reads bookmarks in one pass; each is handed to the collector as soon as nothing after it can add to it (a <DD>
 * describes the bookmark before it), so memory holds entries, not the file's every anchor. Folders deeper than
 * `maxFolderDepth`, or more entries than `maxEntries`, end the reading (the result says why).
 */
export function parseNetscapeHtml(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const out = new EntryCollector(limits, "import:netscape");
  // Each folder's path is built once, from its parent's, and kept only as long as any collection name can be
  // (collect.ts cuts it to maxCollectionLength; names hold no whitespace runs, so two more characters make the
  // cut the same as the whole path's): a bookmark deep in folders costs no more than one at the top.
  const pathChars = limits.maxCollectionLength + 2;
  /** One per open <DL>: the path of the folder it lists (roots add nothing), undefined above every folder. */
  const paths: (string | undefined)[] = [];
  let heading: { attrs: Record<string, string>; text: string } | undefined;
  let pendingFolder: string | null | undefined;
  let anchor: Anchor | undefined;
  /** The bookmark read last, with its position, until a <DD> after it has been read or something else follows. */
  let lastEntry: { index: number; draft: EntryDraft } | undefined;
  /** The text of the <DD> describing lastEntry, while it is read. */
  let described: string | undefined;
  let count = 0;
  let section: string | undefined;
  let sectionText: string | undefined;
  let ending = false;
  let cutShort = false;
  let stopped = false;

  const settle = (): void => {
    if (lastEntry) out.add(lastEntry.index, lastEntry.draft);
    lastEntry = undefined;
  };
  const endDescription = (): void => {
    if (described === undefined) return;
    if (lastEntry) lastEntry.draft.note = described;
    described = undefined;
    settle();
  };
  const stop = (why?: string): void => {
    if (why !== undefined) out.truncate(why);
    stopped = true;
    parser.pause();
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (stopped) return;
        if (["dt", "dl", "dd", "h1", "h3", "a"].includes(name)) endDescription();
        // A folder heading not followed by its <DL> (an empty folder some tools write so) names nothing after it.
        if (name === "h3" || name === "a") pendingFolder = undefined;
        if (name === "h3") heading = { attrs, text: "" };
        else if (name === "dl") {
          if (paths.length >= limits.maxFolderDepth) return stop(`folders are nested deeper than ${limits.maxFolderDepth} levels; the rest of the file was not read`);
          const parent = paths.at(-1);
          const folder = pendingFolder ? cleanFolderName(pendingFolder) : "";
          paths.push(folder === "" ? parent : (parent === undefined ? folder : `${parent} / ${folder}`).slice(0, pathChars));
          pendingFolder = undefined;
        } else if (name === "a") anchor = { attrs, title: "" };
        else if (name === "dd" && lastEntry) described = "";
        else if (name === "h1") sectionText = "";
      },
      ontext(text) {
        if (stopped) return;
        if (anchor) anchor.title += text;
        else if (heading) heading.text += text;
        else if (described !== undefined) described += text;
        else if (sectionText !== undefined) sectionText += text;
      },
      onclosetag(name, implied) {
        if (stopped) return;
        if (name === "a" && anchor) {
          if (ending && implied) cutShort = true;
          settle();
          if (!out.more()) return stop();
          lastEntry = { index: count++, draft: draftOf(anchor, paths.at(-1), section) };
          anchor = undefined;
        } else if (name === "h3" && heading) {
          pendingFolder = isBrowserRoot(heading.attrs) ? null : heading.text;
          heading = undefined;
          // A <DD> after a folder describes the folder, not the bookmark before it.
          settle();
        } else if (name === "dl") {
          endDescription();
          paths.pop();
          pendingFolder = undefined;
          if (ending && implied) cutShort = true;
        } else if (name === "dd") endDescription();
        else if (name === "h1" && sectionText !== undefined) {
          section = sectionText.trim().toLowerCase();
          sectionText = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(decodeText(bytes));
  if (!stopped) {
    ending = true;
    parser.end();
  }
  endDescription();
  settle();
  if (cutShort) out.truncate("the bookmark file ends early (cut short?)");
  return out.result();
}

function isBrowserRoot(attrs: Record<string, string>): boolean {
  return attrs.personal_toolbar_folder?.toLowerCase() === "true" || attrs.unfiled_bookmarks_folder?.toLowerCase() === "true";
}

function draftOf(anchor: Anchor, path: string | undefined, section: string | undefined): EntryDraft {
  const a = anchor.attrs;
  return {
    url: a.href,
    title: anchor.title,
    // Pocket's old export names it time_added.
    createdAt: a.add_date ?? a.time_added,
    tags: (a.tags ?? "").split(","),
    collections: path === undefined ? [] : [path],
    status: section === "read archive" ? "archived" : undefined,
  };
}
