// Projects and the context brief of a repository: what an agent working in a repository should know first.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";

export function registerProjectTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "list_projects",
    {
      title: "List projects",
      description: "Projects group notes and code repositories. Lists active ones (includeArchived adds the rest).",
      inputSchema: {
        includeArchived: z.boolean().optional(),
        limit: z.number().int().min(1).max(100).default(50),
        offset: z.number().int().min(0).max(1_000_000).default(0),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => answer(await api.get("/api/projects", { ...args }))),
  );

  server.registerTool(
    "context_brief",
    {
      title: "Context brief of a repository",
      description:
        "The index of recent notes about a repository (and a path in it): ids, titles, descriptions, kind, state, " +
        "paths and tags, never bodies. Call it when you start work in a repository, then read_note what matters.",
      inputSchema: {
        project: z.string().min(1).max(500).describe("The repository's address (e.g. github.com/owner/name) or a project id."),
        path: z.string().max(1000).optional().describe("A path in the repository to focus on."),
        limit: z.number().int().min(1).max(20).optional().describe("Most notes (at most 20)."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => answer(await api.get("/api/context/brief", { ...args }))),
  );
}
