// OPML in and out: following the feeds of another reader's export (folders become default tags; feeds already
// followed are reported, not followed twice), and this account's feeds as an OPML 2.0 file other readers import.
import { opmlLimits, type Caller, type RawReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { maskUrl, sourceOf } from "./source-view.ts";
import type { SourceRow, SourcesRepository } from "./sources.repository.ts";
import type { SourcesService } from "./sources.service.ts";

/** One feed of an OPML document, with the tags its folders and category attribute give it. */
export interface OpmlFeed {
  title: string;
  feedUrl: string;
  tags: string[];
}

interface Outline {
  text?: string;
  title?: string;
  xmlUrl?: string;
  category?: string;
  outlines?: Outline[];
}

/** Outline nesting followed; deeper folders are read as the deepest one allowed. */
const maxDepth = 16;

export class OpmlService {
  constructor(
    private readonly sources: SourcesService,
    private readonly repo: SourcesRepository,
    private readonly opts: { youtubeFeedUrl: string },
  ) {}

  async import(caller: Caller, body: { opml: string; defaultTags?: string[] }) {
    const extraTags = body.defaultTags ?? [];
    const feeds = await feedsOf(body.opml);
    const created: { source: ReturnType<typeof sourceOf>; tags: string[] }[] = [];
    const existing: { sourceId: string; feedUrl: string; title: string }[] = [];
    const invalid: { title: string; feedUrl: string; error: string }[] = [];
    // One at a time: a file's feeds are registered in its order, and repeats within it find the first.
    for (const feed of feeds) {
      const tags = [...feed.tags, ...extraTags].slice(0, 20);
      try {
        const channelId = this.channelIdOf(feed.feedUrl);
        const { row, created: isNew } = await this.sources.register(
          caller,
          channelId
            ? { type: "youtube_channel", channelId, name: feed.title || undefined, defaultTags: tags }
            : { type: "rss", feedUrl: feed.feedUrl, name: feed.title || undefined, defaultTags: tags },
        );
        if (isNew) created.push({ source: sourceOf(row), tags: row.settings.defaultTags });
        else existing.push({ sourceId: row.id, feedUrl: feed.feedUrl, title: feed.title });
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 400) throw err;
        invalid.push({ title: feed.title, feedUrl: feed.feedUrl, error: err.message });
      }
    }
    return { created, existing, invalid, counts: { created: created.length, existing: existing.length, invalid: invalid.length } };
  }

  /**
   * The feeds as OPML. Addresses follow the manifest's rule: credential-like query values are masked, except for
   * the personal credential (the owner moving to another reader needs the working URLs).
   */
  async export(caller: Caller): Promise<RawReply> {
    const rows = await this.repo.ofTypes(caller.accountId, ["rss", "youtube_channel"]);
    const address = caller.keyKind === "personal" ? (url: string) => url : maskUrl;
    const outline = (r: SourceRow) => ({ text: r.name, title: r.name, type: "rss", xmlUrl: address(this.feedUrlOf(r)) });
    // A folder per first default tag (what an import reads back as that tag); untagged feeds at the top.
    const folders = new Map<string, SourceRow[]>();
    const loose: SourceRow[] = [];
    for (const r of rows) {
      const folder = r.settings.defaultTags[0];
      if (folder === undefined) loose.push(r);
      else folders.set(folder, [...(folders.get(folder) ?? []), r]);
    }
    const outlines = [
      ...[...folders].map(([name, members]) => ({ text: name, title: name, outlines: members.map(outline) })),
      ...loose.map(outline),
    ];
    const head = { title: "Trove sources", dateCreated: new Date() };
    // feedsmith refuses a body without outlines; an account without feeds still gets a document readers open.
    const xml = outlines.length > 0 ? String((await feedsmith()).generateOpml({ head, body: { outlines } })) : emptyOpml(head);
    return {
      body: xml,
      encoding: "utf8",
      contentType: "text/x-opml; charset=utf-8",
      headers: { "content-disposition": 'attachment; filename="trove-sources.opml"' },
    };
  }

  /** What other readers subscribe to for a YouTube channel: its feed. */
  private feedUrlOf(r: SourceRow): string {
    if (r.type === "youtube_channel") return `${this.opts.youtubeFeedUrl}?channel_id=${encodeURIComponent(r.target)}`;
    return r.target;
  }

  /** The channel id when `feedUrl` is a YouTube channel feed (followed as a youtube_channel source). */
  private channelIdOf(feedUrl: string): string | undefined {
    let url: URL;
    try {
      url = new URL(feedUrl);
    } catch {
      return undefined;
    }
    const youtube = /(^|\.)youtube\.com$/i.test(url.hostname) && url.pathname === "/feeds/videos.xml";
    const ours = `${url.origin}${url.pathname}` === this.opts.youtubeFeedUrl;
    return youtube || ours ? (url.searchParams.get("channel_id") ?? undefined) : undefined;
  }
}

/** An OPML 2.0 document whose body lists nothing, with the head feedsmith would write (its title is plain text). */
function emptyOpml(head: { title: string; dateCreated: Date }): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>${head.title}</title><dateCreated>${head.dateCreated.toUTCString()}</dateCreated></head><body></body></opml>`;
}

/**
 * The feeds of an OPML document in document order: outlines with an xmlUrl, tagged with the names of the folders
 * they sit in and the last segment of each path in their category attribute ("/Tech/Rust,News" -> Rust, News).
 * Not OPML, or more than opmlLimits.maxFeeds feeds: 400.
 */
export async function feedsOf(text: string): Promise<OpmlFeed[]> {
  const { parseOpml } = await feedsmith();
  let doc: { body?: { outlines?: Outline[] } };
  try {
    doc = parseOpml(text) as typeof doc;
  } catch {
    throw new AppError("validation_failed", "the document is not OPML (an <opml> root with a <body> of outlines)", { fields: { opml: "not valid OPML" } });
  }
  const feeds: OpmlFeed[] = [];
  const walk = (outlines: Outline[], folders: string[], depth: number) => {
    for (const o of outlines) {
      const name = (o.title ?? o.text ?? "").trim();
      if (o.xmlUrl !== undefined && o.xmlUrl.trim() !== "") {
        if (feeds.length >= opmlLimits.maxFeeds) {
          throw new AppError("validation_failed", `the document lists more than ${opmlLimits.maxFeeds} feeds; split it`, { fields: { opml: `at most ${opmlLimits.maxFeeds} feeds` } });
        }
        feeds.push({ title: name.slice(0, 200), feedUrl: o.xmlUrl.trim(), tags: tagsOf([...folders, ...categories(o.category)]) });
      }
      if (o.outlines && o.outlines.length > 0) walk(o.outlines, depth < maxDepth && name !== "" ? [...folders, name] : folders, depth + 1);
    }
  };
  walk(doc.body?.outlines ?? [], [], 0);
  return feeds;
}

const categories = (attr: string | undefined): string[] =>
  (attr ?? "")
    .split(",")
    .map((path) => path.split("/").filter((s) => s.trim() !== "").at(-1)?.trim() ?? "")
    .filter((s) => s !== "");

/** Tag names as a source's defaultTags take them: at most 100 characters, repeats (any case) once, at most 20. */
function tagsOf(names: string[]): string[] {
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim().slice(0, 100);
    if (name !== "" && !out.some((n) => n.toLowerCase() === name.toLowerCase())) out.push(name);
  }
  return out.slice(0, 20);
}

/** feedsmith, imported on the first OPML import or export: the main thread otherwise never needs it. */
const feedsmith = () => import("feedsmith");
