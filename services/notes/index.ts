// The notes service: notes with their revision history, item links, note context, the notes export, projects and
// the context brief.
import { join } from "node:path";
import { applyTagDeletionSubject, itemNotesSubject, noteEventsFilter, operations, type ItemNotesRequest, type NoteEventMessage } from "@trove/contracts";
import { PostgresSearchEngine, startSemanticIndex, type SemanticSearch } from "@trove/search";
import type { Kysely } from "kysely";
import { readCaller, requestIdHeader, serveOperations, type ServiceModule } from "@trove/host";
import { AppError } from "@trove/errors";
import { BriefRepository } from "./brief.repository.ts";
import { BriefService } from "./brief.service.ts";
import { ContextService } from "./context.service.ts";
import { CrossSearch } from "./cross-search.service.ts";
import { notesEndpoints } from "./endpoints.ts";
import { ExportRepository } from "./export.repository.ts";
import { ExportService } from "./export.service.ts";
import { LinksRepository } from "./links.repository.ts";
import { LinksService } from "./links.service.ts";
import { NoteTagsRepository } from "./note-tags.repository.ts";
import { NoteEvents } from "./note-events.ts";
import { NotesRepository } from "./notes.repository.ts";
import { NotesService } from "./notes.service.ts";
import { ProjectsRepository } from "./projects.repository.ts";
import { ProjectsService } from "./projects.service.ts";
import { NoteSearch, NoteSearchIndexer } from "./search.service.ts";
import { SemanticNoteSearch } from "./semantic-search.service.ts";
import { TagRemoval, tagConsumerFilter, tagConsumerName, tagDeletionOf } from "./tag-removal.ts";

/** The durable consumer that keeps the notes' search index in step with note events. */
export const noteSearchConsumerName = "search-notes";

/** The durable consumer that keeps the notes' vectors in step with note events (semantic search on). */
export const noteEmbedConsumerName = "embed-notes";

/** The notes' search engine and index upkeep on a database (also what `bun run search:reindex` runs). */
export function notesSearchIndex(db: Kysely<any>, semantic?: SemanticSearch, opts: { maxRanked?: number } = {}) {
  const engine = new PostgresSearchEngine(db, { table: "notes.search_docs", fuzzyColumns: { title: "title_fold" }, ...opts });
  const repo = new NotesRepository(db);
  return { engine, indexer: new NoteSearchIndexer(engine, repo), search: new NoteSearch(engine, repo, new SemanticNoteSearch(semantic, repo)) };
}

export const notesService: ServiceModule = {
  name: "notes",
  schema: { name: "notes", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const db = rt.database.db;
    const projects = new ProjectsService(new ProjectsRepository(db));
    const linksRepo = new LinksRepository(db);
    const links = new LinksService(linksRepo, rt.bus);
    const notesRepo = new NotesRepository(db);
    const notes = new NotesService(notesRepo, projects, links, new NoteEvents(rt.events));
    const context = new ContextService(notes, notesRepo, linksRepo, rt.bus, rt.log);
    const exporter = new ExportService(new ExportRepository(db), rt.blobs, rt.log, Math.max(rt.config.requestTimeoutMs, operations.exportNotes.timeoutMs));
    // Semantic search (TROVE_SEMANTIC): vectors kept by their own consumer of the log, embedded on the worker pool.
    const semantic = await startSemanticIndex(rt, {
      consumer: {
        durable: noteEmbedConsumerName,
        filter: noteEventsFilter,
        documentOf: (data) => ({ accountId: (data as NoteEventMessage).accountId, id: (data as NoteEventMessage).noteId }),
        consume: (c, handle) => rt.events.consume(c, handle),
      },
      table: "notes.search_vectors",
      sourceTable: "notes.notes",
      bodyColumn: "body",
    });
    const index = notesSearchIndex(db, semantic?.search, { maxRanked: rt.config.searchRanked });
    const domain = { notes, links, projects, context, exporter, brief: new BriefService(new BriefRepository(db), projects), search: index.search, crossSearch: new CrossSearch(index.search, projects, rt.bus) };
    const subs = serveOperations(rt.bus, "notes", notesEndpoints(domain), rt.log);
    // For GET /api/items/:id: which notes link an item.
    subs.push(
      rt.bus.serve(itemNotesSubject, (payload, meta) => {
        const caller = readCaller(meta);
        if (!caller) throw new AppError("unauthorized", "no caller");
        return links.forItem(caller, (payload as ItemNotesRequest | null)?.itemId);
      }),
    );
    // A deleted tag leaves notes too: at once when items asks before answering the DELETE (the caller's account
    // only), and through the event for whatever that missed. Both run the same idempotent work as the system.
    const tagRemoval = new TagRemoval(notes, new NoteTagsRepository(db), rt.log);
    subs.push(
      rt.bus.serve(applyTagDeletionSubject, (payload, meta) => {
        const caller = readCaller(meta);
        if (!caller) throw new AppError("unauthorized", "no caller");
        const event = tagDeletionOf(payload);
        if (!event) throw new AppError("validation_failed", "expected a tag.deleted event: id, accountId and slug");
        if (event.accountId !== caller.accountId) throw new AppError("forbidden", "the tag deletion is another account's");
        return tagRemoval.apply(event, "request", meta.headers[requestIdHeader]);
      }),
    );
    // Read from the log at a durable position, like the index below: retried for as long as the database is away,
    // replayed after a stop or a crash. A long walk over many notes gets a long acknowledgement window (a replay
    // would only find its revisions written already). Deletions are rare, so a batch is small.
    const tagConsumer = await rt.events.consume(
      { name: tagConsumerName, filter: tagConsumerFilter, batch: 10, ackWaitMs: 10 * 60_000, retryDelaysMs: [500, 2_000, 10_000, 60_000] },
      async (events) => {
        for (const e of events) await tagRemoval.handle(e.data);
      },
    );
    // Index upkeep is quick and idempotent (each batch re-reads its notes), read from the log at a durable position:
    // retried while the database is away, replayed after a stop or a crash.
    const searchConsumer = await rt.events.consume(
      { name: noteSearchConsumerName, filter: noteEventsFilter, batch: 100, ackWaitMs: 30_000, retryDelaysMs: [500, 2_000, 10_000] },
      (events) => index.indexer.onEvents(events.map((e) => e.data as unknown as NoteEventMessage)),
    );
    // Notes written before the index existed (an upgrade) are indexed in the background.
    const backfill = index.indexer.reindexIfEmpty().catch((err) => rt.log.error({ err }, "notes search backfill failed; run bun run search:reindex"));
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
        await tagConsumer.stop();
        // Its batch in hand finishes; what commits after waits in the log for the next start.
        await searchConsumer.stop();
        await backfill;
        await semantic?.stop();
      },
    };
  },
};
