// list_sources: the safe status manifest only. The spec's tool-interface operation cannot ask for settings or
// sensitive configuration, so this tool has no such input and never sends `include`; as a second fence, fields
// that name configuration, cursors or credentials are dropped from what it answers.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";

const HIDDEN = /config|setting|cursor|token|secret|password|credential|auth|cookie|key$|^key|rule/i;

export function registerSourceTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "list_sources",
    {
      title: "List sources",
      description:
        "The sources that pull items into the library (RSS feeds, YouTube channels, X articles, email inboxes): " +
        "name, type, status and sync state. Configuration is never shown here.",
      inputSchema: {
        type: z.enum(["rss", "youtube_channel", "x_articles", "email_inbox"]).optional(),
        limit: z.number().int().min(1).max(100).default(50),
        offset: z.number().int().min(0).max(1_000_000).default(0),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await api.get("/api/sources", { type: args.type, limit: args.limit, offset: args.offset });
        const sources = (page.sources as Record<string, unknown>[]).map(safe);
        return answer({ ...page, sources });
      }),
  );
}

function safe(source: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source).filter(([k]) => !HIDDEN.test(k)));
}
