// Finding the feed of a site address (rss `input`): the address itself when it is a feed, else the page's
// <link rel="alternate" type="application/rss+xml|atom+xml">, else the common paths. None: 400 feed_not_found.
import { AppError } from "@trove/errors";
import { fetchFeed, RunFailure, type FetchDeps } from "./feed-fetch.ts";

export const commonFeedPaths = ["/feed", "/rss.xml", "/atom.xml", "/feed.xml", "/index.xml"];

/** Parses text as a feed (in a worker); true when it is one. */
export type IsFeed = (text: string) => Promise<boolean>;
/** The page's first RSS or Atom alternate link, absolute (read in a worker); null when it names none. */
export type FeedLink = (html: string, base: string) => Promise<string | null>;

export async function discoverFeed(site: string, deps: FetchDeps, isFeed: IsFeed, feedLink: FeedLink): Promise<string> {
  let tried = "";
  try {
    const page = await fetchFeed(site, deps);
    if (!page.notModified) {
      if (page.contentType !== "text/html" && (await isFeed(page.text))) return page.url;
      const linked = await feedLink(page.text, page.url);
      if (linked) return linked;
    }
  } catch (err) {
    if (!(err instanceof RunFailure)) throw err;
    if (err.message.startsWith("url_not_allowed")) throw new AppError("url_not_allowed", err.message.replace(/^url_not_allowed: /, ""));
    tried = ` (${err.message})`;
  }
  for (const path of commonFeedPaths) {
    const candidate = new URL(path, site).href;
    try {
      const res = await fetchFeed(candidate, deps);
      if (!res.notModified && (await isFeed(res.text))) return res.url;
    } catch (err) {
      if (!(err instanceof RunFailure)) throw err;
    }
  }
  throw new AppError("feed_not_found", `no feed found at ${site}${tried}: it names none (<link rel="alternate">) and none of ${commonFeedPaths.join(", ")} is one; give feedUrl`);
}
