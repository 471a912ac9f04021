// Omnivore's export ZIP: metadata_<n>_to_<m>.json (arrays of {slug, title, url, state, labels, savedAt, ...}),
// content/<slug>.html (the saved page) and highlights/<slug>.md. An entry carries its page as `contentHtml` and its
// highlights from the Markdown. Folders around these (a re-zipped export) are tolerated.
import type { ImportParseResult } from "@trove/contracts";
import { EntryCollector, statusFor, type HighlightDraft } from "./collect.ts";
import { ImportFileError } from "./errors.ts";
import { collectJsonEntries } from "./json-entries.ts";
import { readJsonEntries, type JsonEntries } from "./json.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { parseOmnivoreHighlights } from "./omnivore-highlights.ts";
import { tagNames } from "./tags.ts";
import { decodeText } from "./text.ts";
import { baseName, parentName, readZip } from "./zip.ts";

const metadataName = /^metadata_(\d+)_to_\d+\.json$/;

export function isOmnivoreMetadata(name: string): boolean {
  return metadataName.test(baseName(name));
}

function slugOf(name: string, folder: string, extension: string): string | undefined {
  const base = baseName(name);
  return parentName(name) === folder && base.endsWith(extension) ? base.slice(0, -extension.length) : undefined;
}

export function parseOmnivoreZip(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const zip = readZip(
    bytes,
    limits,
    (name) => isOmnivoreMetadata(name) || slugOf(name, "content", ".html") !== undefined || slugOf(name, "highlights", ".md") !== undefined,
  );
  const metadata = zip.entries
    .filter((e) => isOmnivoreMetadata(e.name))
    .sort((a, b) => firstNumber(a.name) - firstNumber(b.name));
  if (metadata.length === 0 && !zip.failed.some((f) => isOmnivoreMetadata(f.name))) {
    throw new ImportFileError("unsupported_format", "no metadata_*.json in the archive: not an Omnivore export?");
  }
  const pages = new Map<string, Uint8Array>();
  const highlightFiles = new Map<string, Uint8Array>();
  for (const entry of zip.entries) {
    const page = slugOf(entry.name, "content", ".html");
    if (page !== undefined) pages.set(page, entry.data);
    const marks = slugOf(entry.name, "highlights", ".md");
    if (marks !== undefined) highlightFiles.set(marks, entry.data);
  }

  const out = new EntryCollector(limits, "import:omnivore");
  let index = 0;
  for (const file of metadata) {
    let read: JsonEntries;
    try {
      read = readJsonEntries(file.data, "items");
    } catch (err) {
      if (!(err instanceof ImportFileError)) throw err;
      out.fail(index, `${baseName(file.name)} could not be read: ${err.message}`, file.name);
      continue;
    }
    collectJsonEntries(
      read,
      out,
      (item) => {
        const slug = typeof item.slug === "string" ? item.slug : undefined;
        const page = slug === undefined ? undefined : pages.get(slug);
        const marks = slug === undefined ? undefined : highlightFiles.get(slug);
        const parsed = marks === undefined ? { highlights: [] as HighlightDraft[], itemNote: undefined } : parseOmnivoreHighlights(decodeText(marks));
        const state = statusFor(typeof item.state === "string" && item.state.toLowerCase() === "archived", false);
        return {
          url: item.url,
          title: item.title,
          createdAt: item.savedAt,
          tags: [...tagNames(item.labels), ...state.tags],
          status: state.status,
          note: parsed.itemNote,
          highlights: parsed.highlights,
          contentHtml: page === undefined ? undefined : decodeText(page),
        };
      },
      index,
    );
    index += read.items.length;
  }
  for (const failure of zip.failed) {
    const listing = isOmnivoreMetadata(failure.name);
    const what = listing ? "entries listed in it were not imported" : "the entry is imported without it";
    out.fail(failure.index, `${failure.name}: ${failure.reason}; ${what}`, failure.name, listing ? undefined : true);
  }
  if (zip.truncated !== undefined) out.truncate(zip.truncated);
  return out.result();
}

function firstNumber(name: string): number {
  return Number(metadataName.exec(baseName(name))?.[1] ?? 0);
}
