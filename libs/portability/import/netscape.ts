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
  const parts = names.map((n) => cleanText(n).replace(/\s+/g, " ").trim()).filter((n) => n !== "");
  return parts.length > 0 ? parts.join(" / ") : undefined;
}

export function parseNetscapeHtml(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const drafts: EntryDraft[] = [];
  /** One per open <DL>: the folder name it lists, or null for a root (the file's own list, a browser root). */
  const folders: (string | null)[] = [];
  let heading: { attrs: Record<string, string>; text: string } | undefined;
  let pendingFolder: string | null | undefined;
  let anchor: Anchor | undefined;
  /** The entry a following <DD> describes, while its text is read. */
  let described: { draft: EntryDraft; text: string } | undefined;
  let lastEntry: EntryDraft | undefined;
  let section: string | undefined;
  let sectionText: string | undefined;
  let ending = false;
  let cutShort = false;

  const endDescription = (): void => {
    if (described) described.draft.note = described.text;
    described = undefined;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (["dt", "dl", "dd", "h1", "h3", "a"].includes(name)) endDescription();
        // A folder heading not followed by its <DL> (an empty folder some tools write so) names nothing after it.
        if (name === "h3" || name === "a") pendingFolder = undefined;
        if (name === "h3") heading = { attrs, text: "" };
        else if (name === "dl") {
          folders.push(pendingFolder ?? null);
          pendingFolder = undefined;
        } else if (name === "a") anchor = { attrs, title: "" };
        else if (name === "dd" && lastEntry && lastEntry.note === undefined) described = { draft: lastEntry, text: "" };
        else if (name === "h1") sectionText = "";
      },
      ontext(text) {
        if (anchor) anchor.title += text;
        else if (heading) heading.text += text;
        else if (described) described.text += text;
        else if (sectionText !== undefined) sectionText += text;
      },
      onclosetag(name, implied) {
        if (name === "a" && anchor) {
          if (ending && implied) cutShort = true;
          lastEntry = draftOf(anchor, folders, section);
          drafts.push(lastEntry);
          anchor = undefined;
        } else if (name === "h3" && heading) {
          pendingFolder = isBrowserRoot(heading.attrs) ? null : heading.text;
          heading = undefined;
          // A <DD> after a folder describes the folder, not the bookmark before it.
          lastEntry = undefined;
        } else if (name === "dl") {
          endDescription();
          folders.pop();
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
  ending = true;
  parser.end();
  endDescription();

  const out = new EntryCollector(limits, "import:netscape");
  for (const [index, draft] of drafts.entries()) {
    if (!out.more()) break;
    out.add(index, draft);
  }
  if (cutShort) out.truncate("the bookmark file ends early (cut short?)");
  return out.result();
}

function isBrowserRoot(attrs: Record<string, string>): boolean {
  return attrs.personal_toolbar_folder?.toLowerCase() === "true" || attrs.unfiled_bookmarks_folder?.toLowerCase() === "true";
}

function draftOf(anchor: Anchor, folders: readonly (string | null)[], section: string | undefined): EntryDraft {
  const a = anchor.attrs;
  const path = folderPath(folders.filter((f): f is string => f !== null));
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
