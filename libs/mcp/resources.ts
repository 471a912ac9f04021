// Items and notes as MCP resources with stable URIs (trove://items/{id}, trove://notes/{id}). Reading one gives
// its Markdown, at most MAX_RESULT_BYTES (the tools read further); listing is paged, PAGE at a time, items first,
// with an opaque cursor. The SDK's own listing would ask every template for everything at once, so resources/list
// is answered here.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, ListResourcesRequestSchema, McpError, type ReadResourceResult, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { seg, type TroveApi } from "./api.ts";
import { MAX_RESULT_BYTES } from "./results.ts";
import { cutBytes } from "./text.ts";

export const PAGE = 50;

type Kind = "items" | "notes";

export function registerResources(server: McpServer, api: TroveApi): void {
  server.registerResource(
    "item",
    new ResourceTemplate("trove://items/{id}", { list: undefined }),
    { title: "Saved item", description: "A saved item's text as Markdown (at most 32 KB; read_item reads further).", mimeType: "text/markdown" },
    async (uri, vars) => {
      const id = String(vars.id);
      const markdown = await api.get<string>(`/api/items/${seg(id)}/content`);
      return document(uri.href, markdown, `read_item id=${id} view=lines`);
    },
  );
  server.registerResource(
    "note",
    new ResourceTemplate("trove://notes/{id}", { list: undefined }),
    { title: "Note", description: "A note's Markdown body (at most 32 KB; read_note reads further).", mimeType: "text/markdown" },
    async (uri, vars) => {
      const id = String(vars.id);
      const note = await api.get(`/api/notes/${seg(id)}`);
      return document(uri.href, String(note.bodyMarkdown ?? note.note?.bodyMarkdown ?? ""), `read_note id=${id} view=lines`);
    },
  );
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => listPage(api, request.params?.cursor));
}

function document(uri: string, markdown: string, further: string): ReadResourceResult {
  const cut = cutBytes(markdown, MAX_RESULT_BYTES);
  const text = cut.truncated ? `${cut.text}\n\n[cut at ${MAX_RESULT_BYTES} bytes: ${further} reads the rest]` : cut.text;
  return { contents: [{ uri, mimeType: "text/markdown", text }] };
}

// Cursor "items:120" or "notes:0": which list and where its next page starts.
async function listPage(api: TroveApi, cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const [kind, at] = parseCursor(cursor);
  const offset = Number(at);
  if (kind === "items") {
    const page = await api.get("/api/items", { limit: PAGE, offset });
    const resources = (page.items as Record<string, any>[]).map((i) => resource("items", i.id, i.title || i.url, i.url));
    const next = offset + resources.length < Number(page.count) ? `items:${offset + resources.length}` : "notes:0";
    return { resources, nextCursor: next };
  }
  const page = await api.get("/api/notes", { limit: PAGE, offset });
  const notes = (page.notes ?? page.items ?? []) as Record<string, any>[];
  const resources = notes.map((n) => resource("notes", n.id, n.title, n.description));
  const total = page.count === undefined ? undefined : Number(page.count);
  const more = total !== undefined ? offset + resources.length < total : resources.length === PAGE;
  return more ? { resources, nextCursor: `notes:${offset + resources.length}` } : { resources };
}

function parseCursor(cursor: string | undefined): [Kind, string] {
  const m = /^(items|notes):(\d{1,9})$/.exec(cursor ?? "items:0");
  if (!m) throw new McpError(ErrorCode.InvalidParams, "unknown cursor: pass the nextCursor of the previous page");
  return [m[1] as Kind, m[2]!];
}

function resource(kind: Kind, id: string, name: string, description?: string): Resource {
  return { uri: `trove://${kind}/${id}`, name: name || id, mimeType: "text/markdown", ...(description ? { description } : {}) };
}
