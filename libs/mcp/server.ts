// The Trove MCP server: every tool and resource over one API client (one caller's key). The same server runs
// over stdio (stdio.ts, against TROVE_URL) and over Streamable HTTP inside the gateway (/mcp).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { TroveApi } from "./api.ts";
import { registerResources } from "./resources.ts";
import { registerChangeTools } from "./tools/changes.ts";
import { registerHighlightTools } from "./tools/highlights.ts";
import { registerItemTools } from "./tools/items.ts";
import { registerNoteTools } from "./tools/notes.ts";
import { registerProjectTools } from "./tools/projects.ts";
import { registerReadTools } from "./tools/read.ts";
import { registerSearchTools } from "./tools/search.ts";
import { registerSourceTools } from "./tools/sources.ts";

export const serverInfo = { name: "trove", version: "0.1.0" };

const instructions = [
  "Trove is the user's personal library: saved web pages (items) with highlights, Markdown notes with revisions,",
  "projects and sources. Find things with `search` (or `list_items`), then read progressively: `read_item` /",
  "`read_note` with view=overview first, then view=search or view=lines; view=full only when you need everything.",
  "Every list pages with offset or cursor, and every answer says how to get more. Notes change only at the revision",
  "you read (expectedRevision); a revision_conflict error means: read again, then retry.",
].join(" ");

export function createTroveMcpServer(api: TroveApi): McpServer {
  const server = new McpServer(serverInfo, { capabilities: { tools: {}, resources: {} }, instructions });
  registerSearchTools(server, api);
  registerItemTools(server, api);
  registerReadTools(server, api);
  registerHighlightTools(server, api);
  registerNoteTools(server, api);
  registerProjectTools(server, api);
  registerSourceTools(server, api);
  registerChangeTools(server, api);
  registerResources(server, api);
  return server;
}
