// Progressive reading of an item's or a note's text, the way a model should read: the overview first (size and
// heading outline with line numbers), then search windows or exact line ranges; the whole text only when asked,
// and then at most MAX_RESULT_BYTES of it with the line to continue from. A range past the API's limits (200
// lines, 32 KB) is narrowed until it fits, and the answer says where the rest starts.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError, seg, type TroveApi } from "../api.ts";
import { answer, guarded, MAX_RESULT_BYTES } from "../results.ts";

/** Lines one read asks for at most: the API's exact-range limit. */
export const MAX_RANGE_LINES = 200;

const readInput = {
  view: z
    .enum(["overview", "search", "lines", "full"])
    .default("overview")
    .describe(
      "overview (default): size and heading outline with line numbers, no text. search: windows of lines around " +
        "`q`. lines: one exact range `lines`=start:end (at most 200 lines, 32 KB; a larger range is narrowed and the " +
        "answer says where to continue). full: the whole text, only when you need all of it (cut at 32 KB).",
    ),
  q: z.string().min(1).max(500).optional().describe("For view=search: the words to find (case-insensitive)."),
  lines: z
    .string()
    .regex(/^\d{1,9}:\d{1,9}$/)
    .optional()
    .describe("For view=lines: start:end, 1-based and inclusive, e.g. 1:80."),
  contextLines: z.number().int().min(0).max(50).optional().describe("For view=search: lines around each match (default 2)."),
  limit: z.number().int().min(1).max(200).optional().describe("For view=search: most windows (default 20)."),
};

export function registerReadTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "read_item",
    {
      title: "Read a saved item",
      description:
        "Read a saved item's text progressively. Start with view=overview (no text: line count and headings with " +
        "their line numbers), then view=search with q, or view=lines for an exact range. Use view=full only when " +
        "you need the whole document.",
      inputSchema: { id: z.string().min(1).max(100).describe("The item's id."), ...readInput },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(() => read(api, `/api/items/${seg(args.id)}/read`, args, { full: `/api/items/${seg(args.id)}/read`, tool: "read_item" })),
  );

  server.registerTool(
    "read_note",
    {
      title: "Read a note",
      description:
        "Read a note's Markdown progressively, like read_item: view=overview first (revision, counts, heading " +
        "outline), then view=search or view=lines; view=full for the whole body. `revision` pins an older revision. " +
        "The answer carries the note's current revision: pass it as expectedRevision when you change the note.",
      inputSchema: {
        id: z.string().min(1).max(100).describe("The note's id."),
        ...readInput,
        revision: z.number().int().min(1).max(2_147_483_647).optional().describe("Read this revision instead of the current one."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(() => read(api, `/api/notes/${seg(args.id)}/read`, args, { tool: "read_note", revision: args.revision })),
  );
}

interface ReadArgs {
  view: "overview" | "search" | "lines" | "full";
  q?: string;
  lines?: string;
  contextLines?: number;
  limit?: number;
}

async function read(api: TroveApi, path: string, args: ReadArgs, opts: { tool: string; full?: string; revision?: number }): Promise<CallToolResult> {
  const { view, q, contextLines, limit } = args;
  const revision = opts.revision;
  if (view === "overview" || view === "search") {
    return answer(await api.get(path, { view, q, contextLines, limit, revision }));
  }
  if (view === "lines") {
    const [start, end] = (args.lines ?? "1:80").split(":").map(Number) as [number, number];
    return lines(api, path, start, end, opts.tool, revision);
  }
  // The whole text: items have a full view; a note's whole body is its first lines until they run out.
  if (opts.full) {
    const doc = await api.get(opts.full, { view: "full" });
    const text = String(doc.text ?? "");
    if (Buffer.byteLength(text, "utf8") <= MAX_RESULT_BYTES - 1024) return answer(doc);
    const shown = cutAtLine(text, MAX_RESULT_BYTES - 2048);
    const next = shown.lines + 1;
    return answer(
      { ...doc, text: shown.text, truncated: true, shownLines: `1:${shown.lines}` },
      `${opts.tool} with view=lines lines=${next}:${next + MAX_RANGE_LINES - 1}`,
    );
  }
  return lines(api, path, 1, MAX_RANGE_LINES, opts.tool, revision, true);
}

// One exact range, narrowed to what the API serves; `more` names the next range while text remains.
async function lines(api: TroveApi, path: string, start: number, end: number, tool: string, revision?: number, whole = false): Promise<CallToolResult> {
  if (!(start >= 1) || !(end >= start)) {
    throw new ApiError(400, "validation_failed", "lines must be start:end, 1-based, with start <= end", { fields: { lines: "start must be >= 1 and <= end" } });
  }
  let last = Math.min(end, start + MAX_RANGE_LINES - 1);
  for (;;) {
    try {
      const slice = await api.get(path, { view: "lines", lines: `${start}:${last}`, revision });
      const total = Number(slice.lineCount ?? 0);
      const shownEnd = Number(slice.endLine ?? last);
      const wanted = whole ? total : Math.min(end, total);
      const more = shownEnd < wanted ? `${tool} with view=lines lines=${shownEnd + 1}:${Math.min(wanted, shownEnd + MAX_RANGE_LINES)}` : undefined;
      return answer(more ? { ...slice, narrowedTo: `${start}:${shownEnd}` } : slice, more);
    } catch (err) {
      // Too many bytes in the range: halve it until it fits (one line always does, lines being capped upstream).
      if (err instanceof ApiError && err.code === "range_too_large" && last > start) {
        last = start + Math.floor((last - start) / 2);
        continue;
      }
      throw err;
    }
  }
}

function cutAtLine(text: string, maxBytes: number): { text: string; lines: number } {
  const out: string[] = [];
  let bytes = 0;
  for (const line of text.split("\n")) {
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (bytes + size > maxBytes) break;
    out.push(line);
    bytes += size;
  }
  return { text: out.join("\n"), lines: out.length };
}
