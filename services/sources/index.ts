// The sources service: sources and their settings, status and event log, OPML import and export, and the scheduler
// that runs them (feeds, channels, X through a bridge) and adds their entries as items through the items service.
// Email inboxes take mail through an SMTP listener on TROVE_SMTP_PORT into a spool, and the `mail` queue makes it
// items (see docs/decisions.md, "Sources").
import { join } from "node:path";
import { feedParseTaskName } from "@trove/feeds";
import { serveOperations, type RunningService, type Runtime, type ServiceModule } from "@trove/host";
import { checkTarget, urlRefusal } from "@trove/webfetch";
import { discoverFeed } from "./discovery.ts";
import { sourcesEndpoints } from "./endpoints.ts";
import { EntriesRepository } from "./entries.repository.ts";
import { feedFetchLimits } from "./feed-fetch.ts";
import { FeedPoller, feedParseDeadlineMs } from "./feed-poller.ts";
import { ItemWriter } from "./item-writer.ts";
import { LeasesRepository } from "./leases.repository.ts";
import { MailIntake } from "./mail-intake.ts";
import { mailQueue } from "./mail-job.ts";
import { startMailListener, type MailListener } from "./mail-listener.ts";
import { MessagesRepository } from "./messages.repository.ts";
import { MessagesService } from "./messages.service.ts";
import { OpmlService } from "./opml.service.ts";
import { PooledReading } from "./pooled-reading.ts";
import { Scheduler, defaultConcurrency, defaultLeaseTtlSec, defaultStopGraceMs } from "./scheduler.ts";
import { SourceEventsRepository } from "./source-events.repository.ts";
import { SourceRunner } from "./source-runner.ts";
import { SourcesRepository } from "./sources.repository.ts";
import { SourcesService } from "./sources.service.ts";

export interface SourcesStartOptions {
  /** false: no timer; sources run only when runDue() is called (tests drive the clock). Default true. */
  timer?: boolean;
  /** The longest sleep between looks at the table; default the config's TROVE_SOURCES_TICK_MS (a minute). */
  maxSleepMs?: number;
  /** The SMTP port; default the config's TROVE_SMTP_PORT (0: no mail listener). */
  smtpPort?: number;
}

/** Starts one replica of the sources service on a runtime (the module below; tests start more). */
export async function startSources(
  rt: Runtime,
  opts: SourcesStartOptions = {},
): Promise<RunningService & { scheduler: Scheduler; mail: MailListener | null }> {
  const db = rt.database.db;
  const owner = `sources-${crypto.randomUUID()}`;
  const fetchDeps = { allowPrivate: rt.config.allowPrivateNetwork, resolver: rt.resolver };
  const events = new SourceEventsRepository(db);
  const leases = new LeasesRepository(db);
  const entries = new EntriesRepository(db);
  const writer = new ItemWriter(rt.bus, rt.config.requestTimeoutMs);
  const reading = new PooledReading(rt.workers);
  const poller = new FeedPoller({
    fetch: fetchDeps,
    workers: rt.workers,
    reading,
    entries,
    writer,
    inboxDomain: rt.config.inboxDomain,
    log: rt.log,
  });
  const runner = new SourceRunner(leases, events, poller, { youtubeFeedUrl: rt.config.youtubeFeedUrl, xRssUrlTemplate: rt.config.xRssUrlTemplate }, owner, rt.log);
  const scheduler = new Scheduler(leases, runner, {
    owner,
    leaseTtlSec: defaultLeaseTtlSec,
    concurrency: defaultConcurrency,
    maxSleepMs: opts.maxSleepMs ?? rt.config.sourcesTickMs,
    stopGraceMs: defaultStopGraceMs,
    log: rt.log,
  });
  const isFeed = (text: string) =>
    rt.workers.run(feedParseTaskName, { text }, { deadlineMs: feedParseDeadlineMs }).then(
      () => true,
      () => false,
    );
  const repo = new SourcesRepository(db);
  const sources = new SourcesService(repo, events, { inboxDomain: rt.config.inboxDomain }, {
    leaseFor: (now) => scheduler.leaseFor(now),
    firstPoll: (row) => scheduler.runLeased(row, async (report) => ({ report, row: (await repo.get(row.account_id, row.id)) ?? row })),
    wake: () => scheduler.wake(),
    discover: (site) => discoverFeed(site, fetchDeps, isFeed, (html, base) => reading.feedLink(html, base)),
    checkFeedUrl: async (url) => {
      try {
        await checkTarget(url, { ...fetchDeps, timeoutMs: feedFetchLimits.connectTimeoutMs });
      } catch (err) {
        const refused = urlRefusal(err);
        // Names that do not resolve now are the run's failure (lastError), not the create's.
        if (refused) throw refused;
      }
    },
  });
  const opml = new OpmlService(sources, repo, { youtubeFeedUrl: rt.config.youtubeFeedUrl });
  const messages = new MessagesRepository(db);
  const subs = serveOperations(rt.bus, "sources", sourcesEndpoints(sources, opml, new MessagesService(repo, messages)), rt.log);
  const smtpPort = opts.smtpPort ?? rt.config.smtpPort;
  const intake = new MailIntake({ db, jobs: rt.jobs.for("sources"), writer, reading, inboxDomain: rt.config.inboxDomain, spoolBytes: rt.config.mailSpoolBytes, log: rt.log });
  rt.jobs.for("sources").register(mailQueue(intake));
  const mail = smtpPort === 0 ? null : await startMailListener(intake, { host: rt.config.host, port: smtpPort, log: rt.log });
  if (opts.timer !== false) scheduler.start();
  return {
    scheduler,
    mail,
    stop: async () => {
      await mail?.stop();
      for (const s of subs) await s.stop();
      await scheduler.stop();
    },
  };
}

export const sourcesService: ServiceModule = {
  name: "sources",
  schema: { name: "sources", migrations: join(import.meta.dir, "migrations"), queue: true },
  start: (rt) => startSources(rt),
};
