// Items are made only by the items service, over the bus, as the source's owner: dedupe, quota, events and
// extraction apply as for any save. The owner's Caller comes from the gateway, which knows accounts and plans.
import type { Bus } from "@trove/bus";
import { accountCallerSubject, subjectOf, type Caller } from "@trove/contracts";
import { capText as clamp } from "@trove/feeds";
import { callerHeaders } from "@trove/host";

export interface NewItem {
  url: string;
  /** Content to keep; absent: the items service fetches and extracts the page. */
  html?: string;
  title: string;
  tags: string[];
  /** The source's name, recorded on the item. */
  source: string;
}

/** Bounds the gateway would apply to these fields (input over the bus skips its validation). */
const limits = { title: 1_000, tag: 100, tags: 100, source: 200 };

export class ItemWriter {
  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs: number,
  ) {}

  callerFor(accountId: string): Promise<Caller> {
    return this.bus.request(accountCallerSubject, { accountId }, { timeoutMs: this.timeoutMs }) as Promise<Caller>;
  }

  /** Saves the item; answers its id and whether it is new (an already saved URL is saved again, left as it is). */
  async add(caller: Caller, item: NewItem): Promise<{ id: string; added: boolean }> {
    const saved = await this.save(caller, item);
    if (saved.added) await this.describe(caller, saved.id, item);
    return saved;
  }

  /** The save alone: the item's id and whether this save made it. */
  async save(caller: Caller, item: Pick<NewItem, "url" | "html" | "source">): Promise<{ id: string; added: boolean }> {
    const body = { url: item.url, source: clamp(item.source, limits.source), ...(item.html !== undefined ? { html: item.html } : {}) };
    const saved = (await this.bus.request(subjectOf("ingest"), { params: {}, query: {}, body }, { timeoutMs: this.timeoutMs, headers: callerHeaders(caller) })) as {
      id: string;
      sync?: { added: number };
    };
    return { id: saved.id, added: (saved.sync?.added ?? 0) > 0 };
  }

  /**
   * Gives a new item its title and tags. Setting them again is harmless, so a retried write whose earlier try saved
   * the item but stopped before this gives them all the same.
   */
  async describe(caller: Caller, id: string, item: Pick<NewItem, "title" | "tags">): Promise<void> {
    const title = clamp(item.title.trim(), limits.title);
    const tags = item.tags.map((t) => clamp(t.trim(), limits.tag)).filter((t) => t !== "").slice(0, limits.tags);
    if (title === "" && tags.length === 0) return;
    const update = { ...(title !== "" ? { title } : {}), ...(tags.length > 0 ? { tags } : {}) };
    await this.bus.request(subjectOf("updateItem"), { params: { id }, query: {}, body: update }, { timeoutMs: this.timeoutMs, headers: callerHeaders(caller) });
  }

  /**
   * Whether the item was made at `since` (Unix seconds) or later: a retried write that finds its URL saved already
   * tells the item its own earlier try made (new: it gets its title and tags) from one the owner had before.
   */
  async madeSince(caller: Caller, id: string, since: number): Promise<boolean> {
    const item = (await this.bus.request(subjectOf("getItem"), { params: { id }, query: {} }, { timeoutMs: this.timeoutMs, headers: callerHeaders(caller) })) as {
      createdAt: number;
    };
    return item.createdAt >= since;
  }
}
