// The notes service: notes with their revision history, item links, note context, the notes export, projects and
// the context brief.
import { join } from "node:path";
import { itemNotesSubject, operations, type ItemNotesRequest } from "@trove/contracts";
import { readCaller, serveOperations, type ServiceModule } from "@trove/host";
import { AppError } from "@trove/errors";
import { BriefService } from "./brief.service.ts";
import { ContextService } from "./context.service.ts";
import { notesEndpoints } from "./endpoints.ts";
import { ExportRepository } from "./export.repository.ts";
import { ExportService } from "./export.service.ts";
import { LinksService } from "./links.service.ts";
import { NotesRepository } from "./notes.repository.ts";
import { NotesService } from "./notes.service.ts";
import { ProjectsService } from "./projects.service.ts";

export const notesService: ServiceModule = {
  name: "notes",
  schema: { name: "notes", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const db = rt.database.db;
    const projects = new ProjectsService(db);
    const links = new LinksService(db);
    const notes = new NotesService(new NotesRepository(db), projects, links);
    const exporter = new ExportService(new ExportRepository(db), rt.blobs, rt.log, Math.max(rt.config.requestTimeoutMs, operations.exportNotes.timeoutMs));
    const domain = { notes, links, projects, context: new ContextService(), exporter, brief: new BriefService() };
    const subs = serveOperations(rt.bus, "notes", notesEndpoints(domain), rt.log);
    // For GET /api/items/:id: which notes link an item.
    subs.push(
      rt.bus.serve(itemNotesSubject, (payload, meta) => {
        const caller = readCaller(meta);
        if (!caller) throw new AppError("unauthorized", "no caller");
        return links.forItem(caller, (payload as ItemNotesRequest).itemId);
      }),
    );
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
