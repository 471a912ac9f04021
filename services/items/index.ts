// The items service: saved pages, their content, tags, collections, highlights, media, and their events in the
// database's event log (the change stream reads them; the search index follows them). Captures that outlast a
// save's answer run on the items' work queue.
import { join } from "node:path";
import type { Kysely } from "kysely";
import {
  captureItemSubject,
  exportPageSubject,
  importEntriesSubject,
  itemEventsFilter,
  itemRefsSubject,
  operations,
  type Caller,
  type ItemEventMessage,
} from "@trove/contracts";
import { AppError } from "@trove/errors";
import { poolExtractor } from "@trove/extract/pooled.ts";
import { PostgresSearchEngine, startSemanticIndex } from "@trove/search";
import { readCaller, serveOperations, type ServiceModule } from "@trove/host";
import { ContentCapture } from "./capture.ts";
import { CaptureJobs } from "./capture-job.ts";
import { CaptureItemService } from "./capture-item.service.ts";
import { CollectionsRepository } from "./collections.repository.ts";
import { CollectionsService } from "./collections.service.ts";
import { ChangesService } from "./changes.service.ts";
import { ConnectedNotes } from "./connected-notes.ts";
import { itemsEndpoints } from "./endpoints.ts";
import { ListCountsRepository } from "./list-counts.repository.ts";
import { HighlightsRepository } from "./highlights.repository.ts";
import { HighlightsService } from "./highlights.service.ts";
import { IngestService } from "./ingest.service.ts";
import { ItemEvents, itemEventOf } from "./item-events.ts";
import { ItemsRepository } from "./items.repository.ts";
import { ItemsService } from "./items.service.ts";
import { MediaRepository } from "./media.repository.ts";
import { MediaService } from "./media.service.ts";
import { NotesTagRemoval } from "./notes-tag-removal.ts";
import { RefsRepository } from "./refs.repository.ts";
import { RefsService } from "./refs.service.ts";
import { ExportPageService } from "./export-page.service.ts";
import { ImportService } from "./import.service.ts";
import { SearchDocsRepository } from "./search-docs.repository.ts";
import { SearchIndexer, SearchService } from "./search.service.ts";
import { SemanticItemSearch } from "./semantic-search.service.ts";
import { TagsRepository } from "./tags.repository.ts";
import { TagsService } from "./tags.service.ts";
import { UsageService } from "./usage.service.ts";

/** The durable consumer that keeps the search index in step with item events. */
export const searchConsumerName = "search-items";

/** The durable consumer that keeps the items' vectors in step with item events (semantic search on). */
export const embedConsumerName = "embed-items";

/** The items' search engine and index upkeep on a database (also what `bun run search:reindex` runs). */
export function itemsSearchIndex(db: Kysely<any>, opts: { maxRanked?: number } = {}) {
  const engine = new PostgresSearchEngine(db, { table: "items.search_docs", fuzzyColumns: { title: "title_fold", url: "url_fold" }, statusColumn: "status", ...opts });
  const docs = new SearchDocsRepository(db);
  return { engine, docs, indexer: new SearchIndexer(engine, docs) };
}

export const itemsService: ServiceModule = {
  name: "items",
  schema: { name: "items", migrations: join(import.meta.dir, "migrations"), queue: true },
  async start(rt) {
    const db = rt.database.db;
    const events = new ItemEvents(rt.events);
    const itemsRepo = new ItemsRepository(db);
    ListCountsRepository.onFoldError = (err) => rt.log.warn({ err }, "folding list counts failed; they stay exact, the fold is tried again");
    const usage = new UsageService(itemsRepo);
    const notesTagRemoval = new NotesTagRemoval(rt.bus, rt.log, Math.max(rt.config.requestTimeoutMs, operations.deleteTag.timeoutMs));
    const tags = new TagsService(new TagsRepository(db), itemsRepo, events, notesTagRemoval);
    const collections = new CollectionsService(new CollectionsRepository(db), itemsRepo);
    const media = new MediaService(new MediaRepository(db), itemsRepo, rt.blobs, rt.log, { allowPrivateNetwork: rt.config.allowPrivateNetwork, resolver: rt.resolver });
    const items = new ItemsService(itemsRepo, tags, collections, media, events, new ConnectedNotes(rt.bus, rt.log));
    const refs = new RefsService(itemsRepo, new RefsRepository(db));
    const highlightsRepo = new HighlightsRepository(db);
    const highlights = new HighlightsService(highlightsRepo, itemsRepo);
    const captures = new ContentCapture(
      highlights,
      media,
      events,
      {
        allowPrivateNetwork: rt.config.allowPrivateNetwork,
        resolver: rt.resolver,
        extractor: poolExtractor(rt.workers, { deadlineMs: rt.config.extractTimeoutMs }),
      },
      rt.log,
    );
    // Background captures are jobs of the items' queue (the host starts its worker once every service has started).
    const captureJobs = new CaptureJobs({ jobs: rt.jobs.for("items"), captures, media, usage, events, log: rt.log });
    const ingest = new IngestService(itemsRepo, usage, captures, captureJobs, tags, events, { waitMs: rt.config.ingestWaitMs });
    const exportPage = new ExportPageService(itemsRepo, highlightsRepo, tags, collections);
    const imports = new ImportService(itemsRepo, usage, tags, collections, highlights, captures, events);
    const captureItem = new CaptureItemService(itemsRepo, events, captures);
    const changes = new ChangesService(itemsRepo, events, tags, collections);
    const { engine, docs, indexer: searchIndex } = itemsSearchIndex(db, { maxRanked: rt.config.searchRanked });
    // Semantic search (TROVE_SEMANTIC): vectors kept by their own consumer, embedded on the worker pool.
    const semantic = await startSemanticIndex(rt, {
      consumer: {
        durable: embedConsumerName,
        filter: itemEventsFilter,
        documentOf: (data) => ({ accountId: (data as ItemEventMessage).accountId, id: (data as ItemEventMessage).itemId }),
        consume: (opts, handle) => rt.events.consume(opts, handle),
      },
      table: "items.search_vectors",
      sourceTable: "items.items",
      bodyColumn: "content_markdown",
    });
    const search = new SearchService(engine, docs, itemsRepo, items, new SemanticItemSearch(semantic?.search, itemsRepo, items));
    // Index upkeep is quick and idempotent (each batch re-reads its items): retried, from the consumer's durable
    // position, for as long as the database refuses; a batch of 500 is one refresh statement per account.
    const indexer = await rt.events.consume(
      { name: searchConsumerName, filter: itemEventsFilter, batch: 500, ackWaitMs: 30_000, retryDelaysMs: [500, 2_000, 10_000] },
      (batch) => searchIndex.onEvents(batch.map(itemEventOf)),
    );
    const backfill = searchIndex.reindexIfEmpty().catch((err) => rt.log.error({ err }, "search backfill failed; run bun run search:reindex"));
    const subs = serveOperations(rt.bus, "items", itemsEndpoints({ items, ingest, tags, collections, highlights, media, usage, changes, search }), rt.log);
    // Internal subjects, each answered as the caller its headers carry. For the notes service (item links, note
    // context): what the caller may see of some items and highlights. For the exports service (data portability):
    // pages of items to export, import batches to save, and captures of imported items.
    const internal = (subject: string, handler: (caller: Caller, payload: unknown) => Promise<unknown>) =>
      rt.bus.serve(subject, (payload, meta) => {
        const caller = readCaller(meta);
        if (!caller) throw new AppError("unauthorized", "no caller");
        return handler(caller, payload);
      });
    subs.push(
      internal(itemRefsSubject, (caller, payload) => refs.itemRefs(caller, payload)),
      internal(exportPageSubject, (caller, payload) => exportPage.exportPage(caller, payload)),
      internal(importEntriesSubject, (caller, payload) => imports.importEntries(caller, payload)),
      internal(captureItemSubject, (caller, payload) => captureItem.captureItem(caller, payload)),
    );
    return {
      stop: async () => {
        // Captures under way were the host's to finish or give back (its job workers stopped before this stop).
        for (const s of subs) await s.stop();
        await indexer.stop();
        await backfill;
        await semantic?.stop();
      },
    };
  },
};
