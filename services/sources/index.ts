// The sources service: sources and their settings, status and event log; OPML import and export. Polling, discovery and the inbox's mail
// listener come with their types (see docs/decisions.md, "Sources").
import { join } from "node:path";
import { serveOperations, type ServiceModule } from "@trove/host";
import { sourcesEndpoints } from "./endpoints.ts";
import { OpmlService } from "./opml.service.ts";
import { SourceEventsRepository } from "./source-events.repository.ts";
import { SourcesRepository } from "./sources.repository.ts";
import { SourcesService } from "./sources.service.ts";

export const sourcesService: ServiceModule = {
  name: "sources",
  schema: { name: "sources", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const db = rt.database.db;
    const repo = new SourcesRepository(db);
    const sources = new SourcesService(repo, new SourceEventsRepository(db), { inboxDomain: rt.config.inboxDomain });
    const opml = new OpmlService(sources, repo, { youtubeFeedUrl: rt.config.youtubeFeedUrl });
    const subs = serveOperations(rt.bus, "sources", sourcesEndpoints(sources, opml), rt.log);
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
