// A note's context: its manifest and outline with bounded summaries of the items it links (asked of the items
// service as the caller) and, when asked, its recent history. A missing, archived or unreachable item marks its
// source unavailable; the response never fails because of one.
import type { Bus } from "@trove/bus";
import { itemRefsSubject, type Caller, type HighlightRef, type ItemRef, type ItemRefsReply, type ItemRefsRequest } from "@trove/contracts";
import { callerHeaders } from "@trove/host";
import type { Logger } from "@trove/log";
import { overview } from "@trove/reader";
import type { LinkRow, LinksRepository } from "./links.repository.ts";
import type { NotesRepository } from "./notes.repository.ts";
import { manifestOf, revisionSummary } from "./note-shapes.ts";
import type { NotesService } from "./notes.service.ts";

/** The linked item's first highlights shown when a link names none. */
const highlightsPerSource = 5;
/** How long a context read waits for the items service before it marks every source unavailable. */
const itemsTimeoutMs = 5_000;

export interface ContextQuery {
  history?: boolean;
  content?: boolean;
  sourceLimit?: number;
  historyLimit?: number;
  contentBytes?: number;
}

type Reason = "missing" | "archived" | "highlight_missing" | "unavailable";

export class ContextService {
  constructor(
    private readonly notes: NotesService,
    private readonly repo: NotesRepository,
    private readonly links: LinksRepository,
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  async context(caller: Caller, rawId: string, q: ContextQuery, requestId?: string) {
    const note = await this.notes.require(caller.accountId, rawId, true);
    const [links, sourceCount, revisions] = await Promise.all([
      this.links.forNote(caller.accountId, note.id, q.sourceLimit ?? 10),
      this.links.countForNote(caller.accountId, note.id),
      q.history ? this.repo.history(note.id, q.historyLimit ?? 10, 0) : Promise.resolve([]),
    ]);
    const sources = await this.sources(caller, links, q.content ? (q.contentBytes ?? 2000) : 0, requestId);
    return {
      note: manifestOf(note),
      outline: overview(note.body ?? "").headings,
      sources,
      sourceCount,
      ...(q.history ? { history: revisions.map(revisionSummary) } : {}),
    };
  }

  private async sources(caller: Caller, links: LinkRow[], contentBytes: number, requestId?: string) {
    if (links.length === 0) return [];
    const request: ItemRefsRequest = {
      itemIds: [...new Set(links.map((l) => l.item_id))],
      highlightIds: [...new Set(links.flatMap((l) => (l.highlight_id ? [l.highlight_id] : [])))],
      contentBytes,
      highlightsPerItem: links.some((l) => !l.highlight_id) ? highlightsPerSource : 0,
    };
    let reply: ItemRefsReply | undefined;
    try {
      reply = (await this.bus.request(itemRefsSubject, request, { timeoutMs: itemsTimeoutMs, headers: callerHeaders(caller, requestId) })) as ItemRefsReply;
    } catch (err) {
      this.log.warn({ err, reqId: requestId }, "items service did not answer: note context without source summaries");
    }
    const items = new Map((reply?.items ?? []).map((i) => [i.id, i]));
    const highlights = new Map((reply?.highlights ?? []).map((h) => [h.id, h]));
    return links.map((l) => {
      const item = items.get(l.item_id);
      const linked = l.highlight_id ? highlights.get(l.highlight_id) : undefined;
      let reason: Reason | undefined;
      if (!reply) reason = "unavailable";
      else if (!item) reason = "missing";
      else if (item.status === "archived") reason = "archived";
      else if (l.highlight_id && linked?.itemId !== l.item_id) reason = "highlight_missing";
      const shown: HighlightRef[] = !item ? [] : l.highlight_id ? (linked && linked.itemId === l.item_id ? [linked] : []) : item.highlights;
      return {
        linkId: l.id,
        itemId: l.item_id,
        highlightId: l.highlight_id,
        relation: l.relation,
        annotation: l.annotation,
        available: reason === undefined,
        ...(reason ? { reason } : {}),
        ...(item ? { item: summaryOf(item) } : {}),
        highlights: shown.slice(0, highlightsPerSource).map((h) => ({ id: h.id, text: h.text, note: h.note })),
      };
    });
  }
}

function summaryOf(i: ItemRef) {
  return {
    id: i.id,
    title: i.title,
    url: i.url,
    status: i.status,
    tags: i.tags,
    createdAt: i.createdAt,
    ...(i.excerpt !== undefined ? { excerpt: i.excerpt, contentTruncated: i.contentTruncated ?? false } : {}),
  };
}
