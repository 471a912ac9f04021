// Bus subject -> handler for every operation the contract gives the notes service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import type { BriefService } from "./brief.service.ts";
import type { ContextService } from "./context.service.ts";
import type { CrossSearch } from "./cross-search.service.ts";
import type { ExportService } from "./export.service.ts";
import type { LinksService } from "./links.service.ts";
import type { NotesService } from "./notes.service.ts";
import type { ProjectsService } from "./projects.service.ts";
import type { NoteSearch } from "./search.service.ts";

export interface NotesDomain {
  notes: NotesService;
  links: LinksService;
  context: ContextService;
  exporter: ExportService;
  projects: ProjectsService;
  brief: BriefService;
  search: NoteSearch;
  crossSearch: CrossSearch;
}

const who = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const notesEndpoints = (d: NotesDomain): HandlerTable<"notes"> => ({
  listNotes: ({ query }, ctx) => d.notes.list(who(ctx.caller), query),
  createNote: ({ body }, ctx) => d.notes.create(who(ctx.caller), body),
  searchNotes: ({ query }, ctx) => d.search.search(who(ctx.caller), query),
  search: ({ query }, ctx) => d.crossSearch.search(who(ctx.caller), query, ctx.requestId),
  exportNotes: (_, ctx) => d.exporter.export(who(ctx.caller)),
  getNote: ({ params, accept }, ctx) => d.notes.get(who(ctx.caller), params.id, accept),
  readNote: ({ params, query }, ctx) => d.notes.read(who(ctx.caller), params.id, query),
  updateNote: ({ params, body }, ctx) => d.notes.update(who(ctx.caller), params.id, body),
  appendNote: ({ params, body }, ctx) => d.notes.append(who(ctx.caller), params.id, body),
  archiveNote: ({ params, body }, ctx) => d.notes.setArchived(who(ctx.caller), params.id, true, body),
  restoreNote: ({ params, body }, ctx) => d.notes.setArchived(who(ctx.caller), params.id, false, body),
  noteHistory: ({ params, query }, ctx) => d.notes.history(who(ctx.caller), params.id, query),
  restoreNoteRevision: ({ params, body }, ctx) => d.notes.restoreRevision(who(ctx.caller), params.id, params.revision, body),
  createNoteItemLink: ({ params, body }, ctx) => d.links.create(who(ctx.caller), params.id, body, ctx.requestId),
  deleteNoteItemLink: ({ params }, ctx) => d.links.delete(who(ctx.caller), params.id, params.linkId),
  noteContext: ({ params, query }, ctx) => d.context.context(who(ctx.caller), params.id, query, ctx.requestId),
  listProjects: ({ query }, ctx) => d.projects.list(who(ctx.caller), { includeArchived: query.includeArchived, limit: query.limit ?? 200, offset: query.offset ?? 0 }),
  getProject: ({ params }, ctx) => d.projects.get(who(ctx.caller), params.id),
  createProject: ({ body }, ctx) => d.projects.create(who(ctx.caller), body),
  updateProject: ({ params, body }, ctx) => d.projects.update(who(ctx.caller), params.id, body),
  deleteProject: ({ params }, ctx) => d.projects.archive(who(ctx.caller), params.id),
  contextBrief: ({ query }, ctx) => d.brief.brief(who(ctx.caller), query),
});
