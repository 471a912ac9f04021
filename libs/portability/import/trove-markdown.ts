// Trove's own Markdown ZIP export: one .md file per item (in any folder), YAML frontmatter (id, url, title, tags,
// collections, status, created, updated, processed, source), then sections between HTML-comment markers, each
// marker on its own line, in this order (the layout the export writer and this parser agree on):
//   <!-- trove:content -->     the item's Markdown          <!-- /trove:content -->
//   <!-- trove:highlights -->  ## Highlights + ```json [PortableHighlight, ...] ```   <!-- /trove:highlights -->
//   <!-- trove:note -->        the item's note               <!-- /trove:note -->
// Every section is optional. A page's Markdown may itself contain marker text, so the content ends at the LAST
// content end marker; highlights (JSON, one string per line) and the note are looked for after it. A .md file with
// frontmatter but no markers at all (written by hand) gives its whole body as the content. README.md is skipped.
import type { ImportParseResult } from "@trove/contracts";
import { parse as parseYaml } from "yaml";
import { EntryCollector, type EntryDraft } from "./collect.ts";
import { isRecord } from "./json-entries.ts";
import { defaultImportLimits, type ImportLimits } from "./limits.ts";
import { decodeText } from "./text.ts";
import { portableHighlights, portableStatus } from "./trove-json.ts";
import { baseName, readZip } from "./zip.ts";
// The export escapes marker text inside content and notes (a U+200B after `<!--`); reading takes it out again.
import { markers, unescapeMarkers } from "../export/item-markdown.ts";

/** The export writer's markers (defined once, there), named as this parser looks for them. */
export const troveMarkdownMarkers = {
  contentStart: markers.content.open,
  contentEnd: markers.content.close,
  highlightsStart: markers.highlights.open,
  highlightsEnd: markers.highlights.close,
  noteStart: markers.note.open,
  noteEnd: markers.note.close,
} as const;

/** Whether a ZIP entry is one item's file. */
export function isItemMarkdown(name: string): boolean {
  const base = baseName(name).toLowerCase();
  return base.endsWith(".md") && base !== "readme.md";
}

export function parseTroveMarkdownZip(bytes: Uint8Array, limits: ImportLimits = defaultImportLimits): ImportParseResult {
  const zip = readZip(bytes, limits, isItemMarkdown);
  const out = new EntryCollector(limits);
  // Items are numbered by their position among the archive's item files, read or failed.
  const files = [
    ...zip.entries.map((e) => ({ name: e.name, zipIndex: e.index, data: e.data as Uint8Array | undefined, reason: "" })),
    ...zip.failed.map((f) => ({ name: f.name, zipIndex: f.index, data: undefined, reason: f.reason })),
  ].sort((a, b) => a.zipIndex - b.zipIndex);
  for (const [index, file] of files.entries()) {
    if (!out.more()) break;
    if (file.data === undefined) {
      out.fail(index, file.reason, file.name);
      continue;
    }
    const item = readItemFile(decodeText(file.data));
    if (typeof item === "string") out.fail(index, item, file.name);
    else {
      out.add(index, item.draft, file.name);
      if (item.problem !== undefined) out.fail(index, item.problem, file.name, true);
    }
  }
  if (zip.truncated !== undefined) out.truncate(zip.truncated);
  return out.result();
}

/** One item file as a draft (and a problem with part of it), or why it cannot be read. */
export function readItemFile(text: string): { draft: EntryDraft; problem?: string } | string {
  const split = splitFrontmatter(text);
  if (split === undefined) return "no YAML frontmatter (--- at the top)";
  let meta: unknown;
  try {
    meta = parseYaml(split.yaml);
  } catch (err) {
    return `the frontmatter is not valid YAML (${(err as Error).message.split("\n")[0]})`;
  }
  if (!isRecord(meta)) return "the frontmatter is not a YAML mapping";
  const body = readBody(split.body);
  const draft: EntryDraft = {
    url: meta.url,
    title: scalar(meta.title),
    tags: names(meta.tags),
    collections: names(meta.collections),
    status: portableStatus(meta.status),
    createdAt: scalar(meta.created),
    processedAt: scalar(meta.processed),
    source: meta.source,
    contentMarkdown: body.content,
    note: body.note,
    highlights: portableHighlights(body.highlights),
  };
  return body.problem === undefined ? { draft } : { draft, problem: body.problem };
}

export function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const lines = text.split("\n");
  if (lines[0]?.trim() !== "---") return undefined;
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === "---" || line.trim() === "..."));
  if (end < 0) return undefined;
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

interface Body {
  content?: string;
  highlights?: unknown;
  note?: string;
  problem?: string;
}

function readBody(body: string): Body {
  const m = troveMarkdownMarkers;
  const lines = body.split("\n");
  const isMarker = (i: number, marker: string): boolean => lines[i]?.trim() === marker;
  const first = (marker: string, from: number): number => {
    for (let i = from; i < lines.length; i++) if (isMarker(i, marker)) return i;
    return -1;
  };
  const last = (marker: string, after: number): number => {
    for (let i = lines.length - 1; i > after; i--) if (isMarker(i, marker)) return i;
    return -1;
  };
  const between = (start: number, end: number): string => lines.slice(start + 1, end).join("\n");

  if (!Object.values(m).some((marker) => first(marker, 0) >= 0)) return { content: body.trim() };
  const result: Body = {};
  let at = 0;
  const contentStart = first(m.contentStart, 0);
  const contentEnd = contentStart < 0 ? -1 : last(m.contentEnd, contentStart);
  if (contentEnd >= 0) {
    result.content = unescapeMarkers(between(contentStart, contentEnd));
    at = contentEnd + 1;
  }
  const highlightsStart = first(m.highlightsStart, at);
  const highlightsEnd = highlightsStart < 0 ? -1 : first(m.highlightsEnd, highlightsStart + 1);
  if (highlightsEnd >= 0) {
    const fenced = /```json[^\n]*\n([\s\S]*?)\n```/.exec(between(highlightsStart, highlightsEnd));
    try {
      result.highlights = fenced ? JSON.parse(fenced[1] as string) : [];
    } catch {
      result.problem = "imported without its highlights: their JSON block does not parse";
    }
    at = highlightsEnd + 1;
  }
  const noteStart = first(m.noteStart, at);
  const noteEnd = noteStart < 0 ? -1 : last(m.noteEnd, noteStart);
  if (noteEnd >= 0) result.note = unescapeMarkers(between(noteStart, noteEnd));
  return result;
}

/** A YAML scalar as text (an unquoted title such as 1984 reads as a number). */
function scalar(value: unknown): unknown {
  return typeof value === "number" || typeof value === "boolean" ? String(value) : value;
}

function names(value: unknown): string[] {
  if (!Array.isArray(value)) return typeof value === "string" ? [value] : [];
  return value.map(scalar).filter((v): v is string => typeof v === "string");
}
