// Items: save a page, list and update items, the feed of unprocessed items and marking them processed.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { seg, type TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";
import { clip, itemSummary, nextOffset } from "../shapes.ts";

const listFilters = {
  tags: z.string().max(500).optional().describe("Comma-separated tag names or slugs; items carrying any of them."),
  collection: z.string().max(200).optional().describe("A collection's id, name or slug."),
  since: z.string().max(40).optional().describe("Only items saved at or after this time (ISO date or timestamp)."),
  until: z.string().max(40).optional().describe("Only items saved before this time (ISO date or timestamp)."),
};
const paging = (max: number, dflt: number) => ({
  limit: z.number().int().min(1).max(max).default(dflt).describe(`Items per page (1-${max}, default ${dflt}).`),
  offset: z.number().int().min(0).max(1_000_000).default(0).describe("Where the page starts: pass the previous answer's nextOffset."),
});

export function registerItemTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "save_url",
    {
      title: "Save a web page",
      description:
        "Save a web page to the library by URL. The server fetches and extracts the page; pass `html` when you " +
        "already hold the page's HTML (behind a login, say) and the server extracts that instead of fetching. " +
        "Answers the item's id and whether its text was extracted. Saving a URL already saved returns the same item. " +
        "With a key scoped to a tag or collection the new item joins that scope (so it can be read back); a URL the " +
        "library holds outside the scope is refused with outside_scope and that item stays as it was.",
      inputSchema: {
        url: z.string().min(1).max(8192).describe("The page's http(s) URL."),
        html: z.string().max(5_000_000).optional().describe("The page's HTML, when you have it."),
        source: z.string().max(200).optional().describe("Where the save comes from (a label shown on the item)."),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (args) =>
      guarded(async () => {
        const saved = await api.post("/api/ingest", { url: args.url, html: args.html, source: args.source ?? "mcp" });
        return answer({
          id: saved.id,
          url: saved.url,
          extracted: saved.extracted,
          extractError: saved.extractError,
          background: saved.background,
          next: "read_item with this id reads the saved text (start with view=overview).",
        });
      }),
  );

  server.registerTool(
    "list_items",
    {
      title: "List saved items",
      description:
        "List saved items, newest first, as compact records (no text). Filter by status, tags, collection, source " +
        "or time; archived items are left out unless `status` names them. Page with `offset` = the previous " +
        "answer's nextOffset. To find items by words or meaning use `search`; to read one use `read_item`.",
      inputSchema: {
        status: z.string().max(100).optional().describe("Comma-separated statuses (e.g. unread,archived)."),
        source: z.string().max(200).optional().describe("One capture source or website."),
        ...listFilters,
        ...paging(100, 20),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await api.get("/api/items", { ...args });
        const items = (page.items as Record<string, any>[]).map(itemSummary);
        const next = nextOffset(args.offset, items.length, page.count);
        return answer({ items, count: page.count, offset: args.offset, nextOffset: next }, next === null ? undefined : `list_items with offset=${next}`);
      }),
  );

  server.registerTool(
    "update_item",
    {
      title: "Update an item",
      description:
        "Change an item: its title, personal notes, tags (the full new list), collections (ids, names or slugs; the " +
        "full new list), archived or processed state. Fields left out stay as they are.",
      inputSchema: {
        id: z.string().min(1).max(100).describe("The item's id."),
        title: z.string().max(2000).optional(),
        notes: z.string().max(100_000).optional().describe("The item's personal note (replaces it)."),
        tags: z.array(z.string().max(200)).max(100).optional().describe("The item's tags after the change."),
        collections: z.array(z.string().max(200)).max(100).optional().describe("The item's collections after the change."),
        archived: z.boolean().optional(),
        processed: z.boolean().optional().describe("true marks it processed (it leaves the feed); false puts it back."),
      },
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    ({ id, collections, ...rest }) =>
      guarded(async () => answer(await api.post(`/api/items/${seg(id)}`, { ...rest, ...(collections ? { collectionIds: collections } : {}) }))),
  );

  server.registerTool(
    "feed",
    {
      title: "Unprocessed items",
      description:
        "The feed: saved items not yet marked processed, oldest work first as the API orders it, each with the " +
        "start of its text. Process them (summarise, file, act) and then call `mark_processed` with their ids so " +
        "they leave the feed. Read more of one with `read_item`.",
      inputSchema: {
        q: z.string().max(500).optional().describe("Only items matching these words."),
        ...listFilters,
        ...paging(50, 10),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await api.get("/api/feed", { ...args });
        const items = (page.items as Record<string, any>[]).map((item) => ({
          ...itemSummary(item),
          textStart: clip(item.contentMarkdown, 1200),
        }));
        const next = nextOffset(args.offset, items.length, page.count);
        return answer({ items, count: page.count, offset: args.offset, nextOffset: next }, next === null ? undefined : `feed with offset=${next}`);
      }),
  );

  server.registerTool(
    "mark_processed",
    {
      title: "Mark items processed",
      description: "Mark items processed so they leave the feed. Answers how many were marked.",
      inputSchema: { ids: z.array(z.string().min(1).max(100)).min(1).max(1000).describe("The items' ids.") },
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    (args) => guarded(async () => answer(await api.post("/api/items/mark-processed", { ids: args.ids }))),
  );
}
