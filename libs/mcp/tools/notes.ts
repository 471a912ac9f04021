// Notes: create, append, replace and change metadata (pinned to the revision read, so no one's edit is lost),
// history and restore, links to items, and a note's context. Reading is read_note (read.ts).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { seg, type TroveApi } from "../api.ts";
import { answer, guarded } from "../results.ts";

const id = z.string().min(1).max(100).describe("The note's id.");
const expectedRevision = z
  .number()
  .int()
  .min(1)
  .max(2_147_483_647)
  .describe("The note's current revision as you last read it. A stale value fails with revision_conflict: read again, then retry.");
const clientRequestId = z.string().min(1).max(200).optional().describe("Your id for this change: a retry with the same id is applied once.");
const metadata = {
  tags: z.array(z.string().max(200)).max(100).optional().describe("The note's tags after the change (an empty list removes all)."),
  project: z.string().max(500).nullable().optional().describe("A project id or repository address; null clears it."),
  repository: z.string().max(500).nullable().optional().describe("The repository the note is about; null clears it."),
  paths: z.array(z.string().max(1000)).max(100).optional().describe("Paths in the repository the note concerns."),
  kind: z.string().max(100).nullable().optional().describe("What the note is (decision, todo, log…); null clears it."),
  state: z.string().max(100).nullable().optional().describe("Its state (open, done…); null clears it."),
  properties: z.record(z.string(), z.unknown()).optional().describe("Custom properties (a flat object)."),
};

export function registerNoteTools(server: McpServer, api: TroveApi): void {
  server.registerTool(
    "create_note",
    {
      title: "Create a note",
      description: "Create a Markdown note. Answers its id and revision 1.",
      inputSchema: {
        title: z.string().min(1).max(1000),
        bodyMarkdown: z.string().max(1_000_000).default(""),
        clientRequestId,
        ...metadata,
      },
      annotations: { readOnlyHint: false },
    },
    (args) => guarded(async () => answer(await api.post("/api/notes", args))),
  );

  server.registerTool(
    "append_note",
    {
      title: "Append to a note",
      description:
        "Add Markdown at the end of a note, as a new revision. Without expectedRevision it appends to whatever the " +
        "note is now (safe beside other writers); with it, the append fails with revision_conflict if the note moved on.",
      inputSchema: {
        id,
        bodyMarkdown: z.string().min(1).max(1_000_000),
        expectedRevision: expectedRevision.optional(),
        clientRequestId,
      },
      annotations: { readOnlyHint: false },
    },
    ({ id: noteId, ...body }) => guarded(async () => answer(await api.post(`/api/notes/${seg(noteId)}/append`, body))),
  );

  server.registerTool(
    "update_note",
    {
      title: "Replace or change a note",
      description:
        "Replace a note's title or whole body, or change its metadata (tags, project, repository, paths, kind, " +
        "state, properties). Needs expectedRevision, the revision you read: a stale one fails with " +
        "revision_conflict and the current revision, and nothing is overwritten. Fields left out stay as they are.",
      inputSchema: {
        id,
        expectedRevision,
        title: z.string().min(1).max(1000).optional(),
        bodyMarkdown: z.string().max(1_000_000).optional().describe("The whole new body (replaces the old)."),
        clientRequestId,
        ...metadata,
      },
      annotations: { readOnlyHint: false },
    },
    ({ id: noteId, ...body }) => guarded(async () => answer(await api.patch(`/api/notes/${seg(noteId)}`, body))),
  );

  server.registerTool(
    "note_history",
    {
      title: "A note's revisions",
      description: "Revision summaries of a note, newest first (who, when, what changed); read an old one with read_note revision=N.",
      inputSchema: {
        id,
        limit: z.number().int().min(1).max(100).default(20),
        offset: z.number().int().min(0).max(1_000_000).default(0),
      },
      annotations: { readOnlyHint: true },
    },
    ({ id: noteId, ...query }) =>
      guarded(async () => {
        const page = await api.get(`/api/notes/${seg(noteId)}/history`, query);
        const shown = (page.revisions as unknown[] | undefined)?.length ?? 0;
        const more = shown === query.limit ? `note_history with offset=${query.offset + shown}` : undefined;
        return answer(page, more);
      }),
  );

  server.registerTool(
    "restore_note_revision",
    {
      title: "Restore an older revision",
      description: "Make an older revision's content the note's next revision (history is kept). Needs expectedRevision.",
      inputSchema: {
        id,
        revision: z.number().int().min(1).max(2_147_483_647).describe("The revision to bring back."),
        expectedRevision,
        clientRequestId,
      },
      annotations: { readOnlyHint: false },
    },
    ({ id: noteId, revision, ...body }) => guarded(async () => answer(await api.post(`/api/notes/${seg(noteId)}/revisions/${seg(revision)}/restore`, body))),
  );

  server.registerTool(
    "link_note_item",
    {
      title: "Attach an item to a note",
      description: "Link a saved item (or one of its highlights) to a note, with an optional relation and annotation. Repeating a link returns the existing one.",
      inputSchema: {
        id,
        itemId: z.string().min(1).max(100).optional(),
        highlightId: z.string().min(1).max(100).optional(),
        relation: z.string().max(100).optional().describe("How the item relates (source, reference…)."),
        annotation: z.string().max(10_000).optional(),
      },
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    ({ id: noteId, ...body }) => guarded(async () => answer(await api.post(`/api/notes/${seg(noteId)}/item-links`, body))),
  );

  server.registerTool(
    "note_context",
    {
      title: "A note with its sources",
      description:
        "A note together with bounded summaries of the items and highlights linked to it, and optionally its recent " +
        "history: what you need to continue work the note describes.",
      inputSchema: {
        id,
        history: z.boolean().optional().describe("Add recent revision summaries."),
        content: z.boolean().optional().describe("Add the start of each linked item's text."),
        sourceLimit: z.number().int().min(1).max(50).optional(),
        contentBytes: z.number().int().min(1).max(16_384).optional().describe("Bytes of each linked item's text."),
      },
      annotations: { readOnlyHint: true },
    },
    ({ id: noteId, ...query }) => guarded(async () => answer(await api.get(`/api/notes/${seg(noteId)}/context`, query))),
  );
}
