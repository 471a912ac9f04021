// The change stream: every change to the library in order, read with a cursor.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";
import { itemSummary } from "../shapes.ts";

export function registerChangeTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "poll_changes",
    {
      title: "Poll the change stream",
      description:
        "What changed in the library since a cursor: item created, updated, archived, deleted and so on, oldest " +
        "first. Start without a cursor (or with updatedSince), keep the answer's nextCursor and pass it back as " +
        "`cursor`; while hasMore is true there is more to read now.",
      inputSchema: {
        cursor: z.string().max(500).optional().describe("nextCursor of the previous answer."),
        updatedSince: z.string().max(40).optional().describe("Start at changes at or after this time (ISO date or timestamp)."),
        tags: z.string().max(500).optional(),
        collection: z.string().max(200).optional(),
        limit: z.number().int().min(1).max(200).default(50),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await api.get("/api/items/changes", {
          cursor: args.cursor,
          updated_since: args.updatedSince,
          tags: args.tags,
          collection: args.collection,
          limit: args.limit,
        });
        const events = (page.events as Record<string, any>[]).map((e) => ({ ...e, item: e.item ? itemSummary(e.item) : undefined }));
        return answer({ ...page, events }, page.hasMore ? `poll_changes with cursor=${page.nextCursor}` : undefined);
      }),
  );
}
