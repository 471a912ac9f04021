// The sources service: sources and their settings, status and event log, OPML import and export, and their polls
// (feeds, channels, X through a bridge) on the work queue, which add their entries as items through the items service.
// Email inboxes take mail through an SMTP listener on TROVE_SMTP_PORT into a spool, and the `mail` queue makes it
// items (see docs/decisions.md, "Sources").
import { join } from "node:path";
import { feedParseTaskName } from "@trove/feeds";
import { serveOperations, type RunningService, type Runtime, type ServiceModule } from "@trove/host";
import { QueueSet } from "@trove/jobs";
import { checkTarget, urlRefusal } from "@trove/webfetch";
import { discoverFeed } from "./discovery.ts";
import { sourcesEndpoints } from "./endpoints.ts";
import { EntriesRepository } from "./entries.repository.ts";
import { feedFetchLimits } from "./feed-fetch.ts";
import { FeedPoller, feedParseDeadlineMs } from "./feed-poller.ts";
import { ItemWriter } from "./item-writer.ts";
import { MailIntake } from "./mail-intake.ts";
import { mailQueue } from "./mail-job.ts";
import { startMailListener, type MailListener } from "./mail-listener.ts";
import { MessagesRepository } from "./messages.repository.ts";
import { MessagesService } from "./messages.service.ts";
import { OpmlService } from "./opml.service.ts";
import { SourcePolls } from "./poll-job.ts";
import { PooledReading } from "./pooled-reading.ts";
import { SourceEventsRepository } from "./source-events.repository.ts";
import { SourceRunner } from "./source-runner.ts";
import { SourcesRepository } from "./sources.repository.ts";
import { SourcesService } from "./sources.service.ts";

export interface SourcesStartOptions {
  /**
   * The queues the polls run on: the service module passes the host's (started and stopped by the host). Without
   * it (another replica in this process, in tests) the replica has queues of its own, stopped with it.
   */
  jobs?: QueueSet;
  /** false: those queues of its own never work by themselves; polls run only when runDue() is called (tests drive the clock). */
  timer?: boolean;
  /** The longest sleep between looks for due polls; default the config's TROVE_SOURCES_TICK_MS (a minute). */
  maxSleepMs?: number;
  /** The SMTP port; default the config's TROVE_SMTP_PORT (0: no mail listener). */
  smtpPort?: number;
}

/** Starts one replica of the sources service on a runtime (the module below; tests start more). */
export async function startSources(
  rt: Runtime,
  opts: SourcesStartOptions = {},
): Promise<RunningService & { polls: SourcePolls; mail: MailListener | null }> {
  const db = rt.database.db;
  // Named in each run's event, so an operator sees which replicas share the polling.
  const replica = `sources-${crypto.randomUUID()}`;
  const fetchDeps = { allowPrivate: rt.config.allowPrivateNetwork, resolver: rt.resolver };
  const events = new SourceEventsRepository(db);
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
  const ownJobs = opts.jobs
    ? undefined
    : new QueueSet({ db, schema: "sources", log: rt.log.child({ jobs: "sources" }), leaseMs: rt.config.jobLeaseMs, bus: rt.bus, clock: () => polls.now() });
  const jobs = opts.jobs ?? ownJobs!;
  const runner = new SourceRunner(poller, jobs, { youtubeFeedUrl: rt.config.youtubeFeedUrl, xRssUrlTemplate: rt.config.xRssUrlTemplate }, replica, rt.log);
  const repo = new SourcesRepository(db);
  const polls: SourcePolls = new SourcePolls({ jobs, runner, sources: repo, tickMs: opts.maxSleepMs ?? rt.config.sourcesTickMs, log: rt.log });
  const isFeed = (text: string) =>
    rt.workers.run(feedParseTaskName, { text }, { deadlineMs: feedParseDeadlineMs }).then(
      () => true,
      () => false,
    );
  const sources = new SourcesService(db, repo, events, { inboxDomain: rt.config.inboxDomain }, {
    schedule: (uow, row) => polls.schedule(uow, row),
    cancel: (uow, id) => polls.cancel(uow, id),
    claimFirst: (uow, row) => polls.claimFirst(uow, row),
    runFirst: (claim, row) => polls.runFirst(claim, row),
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
  if (ownJobs && opts.timer !== false) ownJobs.start();
  return {
    polls,
    mail,
    // Mail stops being accepted (a message being answered is kept first). Polls are jobs: the host's workers stop
    // claiming them next, and a poll that ends meanwhile still queues the source's next one.
    stopIntake: async () => {
      await mail?.stop();
    },
    stop: async () => {
      await mail?.stop();
      for (const s of subs) await s.stop();
      // The host's queues are the host's to stop (once every service has stopped taking work in); a replica with
      // queues of its own stops them here.
      await ownJobs?.stop(rt.config.stopGraceMs);
    },
  };
}

export const sourcesService: ServiceModule = {
  name: "sources",
  schema: { name: "sources", migrations: join(import.meta.dir, "migrations"), queue: true },
  start: (rt) => startSources(rt, { jobs: rt.jobs.for("sources") }),
};
