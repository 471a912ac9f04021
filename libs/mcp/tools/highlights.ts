// Highlights of an item: list them, and create one anchored to the item's text.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { seg, type TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";

export function registerHighlightTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "list_highlights",
    {
      title: "List an item's highlights",
      description: "The highlights of one saved item, in page order, with their notes. Page with offset = nextOffset.",
      inputSchema: {
        itemId: z.string().min(1).max(100),
        limit: z.number().int().min(1).max(100).default(25),
        offset: z.number().int().min(0).max(1_000_000).default(0),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await api.get(`/api/items/${seg(args.itemId)}/highlights`, { limit: args.limit, offset: args.offset });
        return answer(page, page.hasMore ? `list_highlights with offset=${page.nextOffset}` : undefined);
      }),
  );

  server.registerTool(
    "create_highlight",
    {
      title: "Highlight a passage",
      description:
        "Highlight a passage of a saved item. `text` is the exact passage as it appears in the item's text (read " +
        "it first with read_item); `prefix` and `suffix` (a few words before and after) anchor it when the passage " +
        "occurs more than once. An optional `note` is kept with it.",
      inputSchema: {
        itemId: z.string().min(1).max(100),
        text: z.string().min(1).max(10_000).describe("The passage, exactly as in the item's text."),
        prefix: z.string().max(500).optional().describe("Text right before the passage."),
        suffix: z.string().max(500).optional().describe("Text right after the passage."),
        note: z.string().max(10_000).optional(),
      },
      annotations: { readOnlyHint: false },
    },
    ({ itemId, ...body }) => guarded(async () => answer(await api.post(`/api/items/${seg(itemId)}/highlights`, body))),
  );
}
