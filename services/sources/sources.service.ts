// Sources: create (an equal one is answered instead of a second), read as manifest / settings / sensitive, pause,
// resume, change settings, delete, and the event log. What a source does when it runs lives with its type's poller.
import type { Kysely } from "kysely";
import type { Caller, SourceType } from "@trove/contracts";
import { inTransaction, newId, nowSeconds, type UnitOfWork } from "@trove/db";
import { AppError } from "@trove/errors";
import { LeaseLost, type Claim } from "@trove/jobs";
import type { PollPayload } from "./queue-names.ts";
import { SourceEventsRepository } from "./source-events.repository.ts";
import { checkInclude, sourceOf, type SourceInclude } from "./source-view.ts";
import { SourcesRepository, type SmartTagRule, type SourceRow, type SourceSettings } from "./sources.repository.ts";
import type { RunReport } from "./source-runner.ts";
import { feedAddress, targetOf, type CreateTargetInput } from "./targets.ts";

export const defaultPollEveryMin = 60;

export interface SettingsInput {
  name?: string;
  pollEveryMin?: number;
  defaultTags?: string[];
  smartTagRules?: SmartTagRule[];
  expandFullContent?: boolean;
  autoSummarize?: boolean;
  rollupEnabled?: boolean;
}

export interface CreateInput extends CreateTargetInput, SettingsInput {
  backfillMode?: "from_now" | "days" | "articles";
  backfillDays?: number;
  backfillItems?: number;
  initialImportCount?: number;
}

export interface SourcesOptions {
  inboxDomain: string;
}

/**
 * What runs sources (poll-job.ts): their polls, queued in the unit of work of the change that makes them due, the
 * first poll a create runs itself and answers with; discovery of a site's feed, the SSRF check of a feed URL.
 */
export interface SourcePolling {
  /** Queues the source's next poll for its `next_poll_at` (nothing for a paused source or an inbox). */
  schedule(uow: UnitOfWork, row: SourceRow): Promise<void>;
  cancel(uow: UnitOfWork, sourceId: string): Promise<void>;
  /** The first poll of a new source, claimed by this replica in the create's unit of work. */
  claimFirst(uow: UnitOfWork, row: SourceRow): Promise<Claim<PollPayload>>;
  /** Runs a claimed first poll after the commit; throws LeaseLost when it was given back or taken over. */
  runFirst(claim: Claim<PollPayload>, row: SourceRow): Promise<{ report: RunReport; row: SourceRow | undefined }>;
  discover(site: string): Promise<string>;
  /** Throws url_not_allowed for an address the SSRF guard refuses. */
  checkFeedUrl(url: string): Promise<void>;
}

/** Create fields that belong to one type only; given for another type they are refused, not ignored. */
const fieldsOfType: Record<string, SourceType[]> = {
  feedUrl: ["rss"],
  input: ["rss"],
  channel: ["youtube_channel"],
  channelId: ["youtube_channel"],
  handle: ["youtube_channel", "x_articles"],
  username: ["x_articles"],
  backfillMode: ["rss", "youtube_channel", "x_articles"],
  backfillDays: ["rss", "youtube_channel", "x_articles"],
  backfillItems: ["rss", "youtube_channel", "x_articles"],
  initialImportCount: ["rss", "youtube_channel", "x_articles"],
  expandFullContent: ["rss", "youtube_channel", "x_articles"],
  pollEveryMin: ["rss", "youtube_channel", "x_articles"],
};

export class SourcesService {
  constructor(
    private readonly db: Kysely<any>,
    private readonly repo: SourcesRepository,
    private readonly log: SourceEventsRepository,
    private readonly opts: SourcesOptions,
    private readonly polling: SourcePolling,
  ) {}

  async list(caller: Caller, q: { include?: SourceInclude; type?: SourceType; limit: number; offset: number }) {
    checkInclude(caller, q.include);
    const { rows, count } = await this.repo.list(caller.accountId, q);
    return { sources: rows.map((r) => sourceOf(r, q.include)), limit: q.limit, offset: q.offset, count };
  }

  async get(caller: Caller, id: string, include?: SourceInclude) {
    checkInclude(caller, include);
    return { source: sourceOf(await this.owned(caller, id), include) };
  }

  /** Registers the source and, when new, runs its first poll here before answering (an inbox has none). */
  async create(caller: Caller, body: CreateInput) {
    const { row, created, firstPoll } = await this.register(caller, body, { firstPollHere: true });
    if (!created) return { source: sourceOf(row), existing: true };
    if (!firstPoll) return { source: sourceOf(row), existing: false };
    let first: Awaited<ReturnType<SourcePolling["runFirst"]>>;
    try {
      first = await this.polling.runFirst(firstPoll, row);
    } catch (err) {
      if (!(err instanceof LeaseLost)) throw err;
      // The process is stopping (or lost the poll to another): the source exists and its poll runs again there.
      throw new AppError("service_unavailable", "the service stopped during the source's first poll; the source is created and is polled shortly (creating it again answers it)");
    }
    return { source: sourceOf(first.row ?? row), existing: false, initialRun: first.report };
  }

  /**
   * Stores a new source, due for its first poll now, or finds the equal one (`created: false`); validation errors
   * are thrown as for a create. Nothing is fetched for a feed address here (an OPML import registers many sources at
   * once and leaves their first polls to the queue's workers); a site address (`input`) is discovered. The source,
   * its `created` event and its first poll are one unit of work. `firstPollHere`: the first poll is claimed by this
   * replica, whose caller runs it (create).
   */
  async register(
    caller: Caller,
    body: CreateInput,
    opts: { firstPollHere?: boolean } = {},
  ): Promise<{ row: SourceRow; created: boolean; firstPoll?: Claim<PollPayload> }> {
    for (const [field, types] of Object.entries(fieldsOfType)) {
      if ((body as unknown as Record<string, unknown>)[field] !== undefined && !types.includes(body.type)) {
        throw new AppError("validation_failed", `${field} does not apply to ${body.type} sources`, { fields: { [field]: `not a ${body.type} field` } });
      }
    }
    const inbox = body.type === "email_inbox";
    const target = inbox ? inboxTarget(this.opts.inboxDomain) : await this.feedTarget(body, opts.firstPollHere === true);
    const settings = settingsOf(defaultSettings, body);
    const config = { ...target.config, ...backfillOf(body) };
    const now = nowSeconds();
    return inTransaction(this.db, async (uow) => {
      const { row, created } = await new SourcesRepository(uow.db).insertOrFind(caller.accountId, {
        id: newId(),
        type: body.type,
        name: body.name?.trim() || target.defaultName,
        target: target.key,
        inboxAddress: inbox ? target.key : null,
        pollEveryMin: body.pollEveryMin ?? defaultPollEveryMin,
        nextPollAt: inbox ? null : now,
        lastError: null,
        config,
        settings,
        // A feed's title names the source on its first successful run unless the user named it.
        cursors: inbox || body.name?.trim() ? {} : { nameFromFeed: true },
        now,
      });
      if (!created) return { row, created };
      await new SourceEventsRepository(uow.db).add(caller.accountId, row.id, { type: "created", at: now, detail: { target: sourceOf(row).target } });
      if (inbox) return { row, created };
      if (opts.firstPollHere) return { row, created, firstPoll: await this.polling.claimFirst(uow, row) };
      await this.polling.schedule(uow, row);
      return { row, created };
    });
  }

  /**
   * The target of a polled source; an rss site address (`input`) is resolved to its feed, which becomes the
   * target. A create checks the feed address against the SSRF guard (400); a registration without a first poll
   * here (OPML) only stores it, and its runs meet the guard on every fetch.
   */
  private async feedTarget(body: CreateInput, check: boolean) {
    if (body.type !== "rss") return targetOf(body);
    if (body.feedUrl === undefined && body.input !== undefined) {
      const site = feedAddress(body.input, "input");
      const feedUrl = await this.polling.discover(site);
      const target = targetOf({ type: "rss", feedUrl });
      return { ...target, config: { ...target.config, input: site } };
    }
    const target = targetOf(body);
    if (check) await this.polling.checkFeedUrl(target.key);
    return target;
  }

  async delete(caller: Caller, id: string) {
    await inTransaction(this.db, async (uow) => {
      if (!(await new SourcesRepository(uow.db).delete(caller.accountId, id))) throw notFound();
      await this.polling.cancel(uow, id);
    });
    return { ok: true };
  }

  /**
   * The source's waiting poll job is left as it is: when it comes due it finds the source paused and ends without a
   * next one. A run in progress still records what it did (its items, its cursors) and queues nothing after it.
   */
  async pause(caller: Caller, id: string) {
    const current = await this.owned(caller, id);
    if (current.status === "paused") return { source: sourceOf(current) };
    const now = nowSeconds();
    const row = await this.repo.setStatus(caller.accountId, id, "paused", null, now);
    if (!row) throw notFound();
    await this.log.add(caller.accountId, id, { type: "paused", at: now });
    return { source: sourceOf(row) };
  }

  async resume(caller: Caller, id: string) {
    const current = await this.owned(caller, id);
    if (current.status === "syncing") return { source: sourceOf(current) };
    const now = nowSeconds();
    const row = await inTransaction(this.db, async (uow) => {
      const resumed = await new SourcesRepository(uow.db).setStatus(caller.accountId, id, "syncing", current.type === "email_inbox" ? null : now, now);
      if (!resumed) throw notFound();
      await new SourceEventsRepository(uow.db).add(caller.accountId, id, { type: "resumed", at: now });
      await this.polling.schedule(uow, resumed);
      return resumed;
    });
    return { source: sourceOf(row) };
  }

  /** Changes only the supplied settings; answers the source with its settings. */
  async updateSettings(caller: Caller, id: string, body: SettingsInput) {
    const current = await this.owned(caller, id);
    if (body.pollEveryMin !== undefined && current.type === "email_inbox") {
      throw new AppError("validation_failed", "pollEveryMin does not apply to email_inbox sources", { fields: { pollEveryMin: "not an email_inbox setting" } });
    }
    if (body.expandFullContent !== undefined && current.type === "email_inbox") {
      throw new AppError("validation_failed", "expandFullContent does not apply to email_inbox sources", { fields: { expandFullContent: "not an email_inbox setting" } });
    }
    const name = body.name === undefined ? undefined : body.name.trim();
    if (name === "") throw new AppError("validation_failed", "name must not be blank", { fields: { name: "must not be blank" } });
    const now = nowSeconds();
    const row = await inTransaction(this.db, async (uow) => {
      const updated = await new SourcesRepository(uow.db).update(caller.accountId, id, { name, pollEveryMin: body.pollEveryMin, settings: settingsOf(current.settings, body) }, now);
      if (!updated) throw notFound();
      const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
      if (changed.length > 0) await new SourceEventsRepository(uow.db).add(caller.accountId, id, { type: "settings_changed", at: now, detail: { fields: changed } });
      // A shorter interval may bring the next poll sooner: its job moves with it.
      if (body.pollEveryMin !== undefined) await this.polling.schedule(uow, updated);
      return updated;
    });
    return { source: sourceOf(row, "settings") };
  }

  async events(caller: Caller, id: string, limit: number, offset: number) {
    await this.owned(caller, id);
    const { rows, count } = await this.log.list(caller.accountId, id, limit, offset);
    return {
      events: rows.map((e) => ({ id: e.id, type: e.type, at: e.at, itemsAdded: e.items_added, message: e.message, detail: e.detail })),
      limit,
      offset,
      count,
    };
  }

  private async owned(caller: Caller, id: string): Promise<SourceRow> {
    const row = await this.repo.get(caller.accountId, id);
    if (!row) throw notFound();
    return row;
  }
}

const notFound = () => new AppError("not_found", "source not found");

const defaultSettings: SourceSettings = { defaultTags: [], smartTagRules: [], expandFullContent: false, autoSummarize: false, rollupEnabled: false };

/** `base` with the supplied settings applied; tag names trimmed, blank ones refused, repeats dropped. */
function settingsOf(base: SourceSettings, input: SettingsInput): SourceSettings {
  return {
    defaultTags: input.defaultTags === undefined ? base.defaultTags : tagNames(input.defaultTags, "defaultTags"),
    smartTagRules:
      input.smartTagRules === undefined
        ? base.smartTagRules
        : input.smartTagRules.map((r, i) => {
            const contains = r.contains.trim();
            if (contains === "") throw new AppError("validation_failed", "a rule's contains must not be blank", { fields: { [`smartTagRules[${i}].contains`]: "must not be blank" } });
            return { field: r.field, contains, tags: tagNames(r.tags, `smartTagRules[${i}].tags`) };
          }),
    expandFullContent: input.expandFullContent ?? base.expandFullContent,
    autoSummarize: input.autoSummarize ?? base.autoSummarize,
    rollupEnabled: input.rollupEnabled ?? base.rollupEnabled,
  };
}

function tagNames(names: string[], field: string): string[] {
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === "") throw new AppError("validation_failed", "tag names must not be blank", { fields: { [field]: "tag names must not be blank" } });
    if (!out.some((n) => n.toLowerCase() === name.toLowerCase())) out.push(name);
  }
  return out;
}

/** The first run's limits: from_now unless days or a count is given; a mode without its number is refused. */
function backfillOf(body: CreateInput): Record<string, unknown> {
  if (body.type === "email_inbox") return {};
  const mode = body.backfillMode ?? (body.backfillDays !== undefined ? "days" : body.backfillItems !== undefined ? "articles" : "from_now");
  if (mode === "days" && body.backfillDays === undefined) {
    throw new AppError("validation_failed", "backfillMode days needs backfillDays", { fields: { backfillDays: "required when backfillMode is days" } });
  }
  if (mode === "articles" && body.backfillItems === undefined) {
    throw new AppError("validation_failed", "backfillMode articles needs backfillItems", { fields: { backfillItems: "required when backfillMode is articles" } });
  }
  if (mode !== "days" && body.backfillDays !== undefined) {
    throw new AppError("validation_failed", `backfillDays does not apply to backfillMode ${mode}`, { fields: { backfillDays: "only with backfillMode days" } });
  }
  if (mode !== "articles" && body.backfillItems !== undefined) {
    throw new AppError("validation_failed", `backfillItems does not apply to backfillMode ${mode}`, { fields: { backfillItems: "only with backfillMode articles" } });
  }
  return {
    backfillMode: mode,
    ...(body.backfillDays !== undefined ? { backfillDays: body.backfillDays } : {}),
    ...(body.backfillItems !== undefined ? { backfillItems: body.backfillItems } : {}),
    ...(body.initialImportCount !== undefined ? { initialImportCount: body.initialImportCount } : {}),
  };
}

/** A new, unguessable inbox address: 20 base32 characters (100 random bits) at the operator's domain. */
function inboxTarget(domain: string) {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  const local = [...bytes].map((b) => alphabet[b & 31]).join("");
  const address = `${local}@${domain.toLowerCase()}`;
  return { key: address, defaultName: "Inbox", config: { inboxAddress: address } };
}
