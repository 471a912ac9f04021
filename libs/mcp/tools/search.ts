// Search across items and notes: ranked results with bounded snippets (the API caps each at 600 bytes).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";

export function registerSearchTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "search",
    {
      title: "Search the library",
      description:
        "Find saved items and notes by words or meaning. Results are ranked, each with its type, id, the field " +
        "that matched and a short snippet; note results carry their current revision and, when found, a line " +
        "range to read with read_note view=lines. Read a hit with read_item or read_note. `project` and `path` " +
        "rank a repository's notes first (exactProject/exactPath make them filters).",
      inputSchema: {
        q: z.string().min(1).max(500).describe('The words to find; "quoted phrases", -excluded words and OR work.'),
        types: z.array(z.enum(["item", "note"])).min(1).max(2).optional().describe("Search only items or only notes (default both)."),
        mode: z.enum(["lexical", "semantic", "hybrid"]).optional().describe("lexical: words; semantic: meaning; hybrid: both."),
        tags: z.string().max(500).optional().describe("Comma-separated tags the notes must carry."),
        project: z.string().max(500).optional().describe("A project id or repository address, as a ranking hint."),
        path: z.string().max(1000).optional().describe("A path in the repository, as a ranking hint."),
        exactProject: z.boolean().optional(),
        exactPath: z.boolean().optional(),
        kind: z.string().max(100).optional().describe("Only notes of this kind."),
        state: z.string().max(100).optional().describe("Only notes in this state."),
        limit: z.number().int().min(1).max(50).default(10).describe("Most results (1-50, default 10)."),
      },
      annotations: { readOnlyHint: true },
    },
    ({ types, ...rest }) => guarded(async () => answer(await api.get("/api/search", { ...rest, types: types?.join(",") }))),
  );
}
