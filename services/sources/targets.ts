// What a source follows, from the create body, normalised without the network: the key two equal sources share
// (the unique index on account, type and target), the default name, and the config kept with the source.
import type { SourceType } from "@trove/contracts";
import { AppError } from "@trove/errors";

export interface CreateTargetInput {
  type: SourceType;
  feedUrl?: string;
  input?: string;
  channel?: string;
  channelId?: string;
  handle?: string;
  username?: string;
}

export interface Target {
  /** rss: the feed URL; youtube_channel: the channel id; x_articles: the username in lower case. */
  key: string;
  defaultName: string;
  config: Record<string, unknown>;
}

const invalid = (field: string, why: string, message = `${field} ${why}`) => new AppError("validation_failed", message, { fields: { [field]: why } });

/** YouTube channel ids: "UC" and 22 base64url characters. */
const channelIdPattern = /^UC[A-Za-z0-9_-]{22}$/;
/** X usernames: 1-15 letters, digits or underscores. */
const xUsernamePattern = /^[A-Za-z0-9_]{1,15}$/;

/** The target of an rss, youtube_channel or x_articles source (an inbox's is its generated address). */
export function targetOf(body: CreateTargetInput): Target {
  switch (body.type) {
    case "rss":
      return rssTarget(body);
    case "youtube_channel":
      return youtubeTarget(body);
    case "x_articles":
      return xTarget(body);
    case "email_inbox":
      throw new Error("an inbox's target is its address");
  }
}

/**
 * An http(s) URL as the feed key: parsed by the WHATWG parser (host lower case, default port and dot segments
 * gone), credentials refused (they would be sent to the feed's host on every poll and shown in settings), the
 * fragment dropped (never sent).
 */
export function feedAddress(raw: string, field: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(field, "must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(field, "must be an absolute http(s) URL", `${field} scheme ${url.protocol} is not fetched`);
  if (!url.hostname) throw invalid(field, "must be an absolute http(s) URL");
  if (url.username || url.password) throw invalid(field, "must not carry credentials (user:password@)");
  url.hash = "";
  return url.href;
}

function rssTarget(body: CreateTargetInput): Target {
  // A site address (input) is resolved to its feed by SourcesService before this.
  if (body.feedUrl === undefined) throw invalid("feedUrl", "is required for rss (or give input, a site address)");
  const feedUrl = feedAddress(body.feedUrl, "feedUrl");
  return { key: feedUrl, defaultName: new URL(feedUrl).hostname, config: { feedUrl } };
}

function youtubeTarget(body: CreateTargetInput): Target {
  const id = body.channelId?.trim() ?? (body.channel === undefined ? undefined : channelIdInUrl(body.channel));
  if (id === undefined) {
    const what = body.handle !== undefined ? "handle" : "channel";
    if (body.handle === undefined && body.channel === undefined) throw invalid("channelId", "is required for youtube_channel (or channel, a /channel/UC… URL)");
    throw invalid(
      what,
      "cannot be resolved to a channel id without the network; give channelId (UC…) or a youtube.com/channel/UC… URL",
    );
  }
  if (!channelIdPattern.test(id)) throw invalid(body.channelId !== undefined ? "channelId" : "channel", "must name a channel id: UC followed by 22 letters, digits, - or _");
  return { key: id, defaultName: id, config: { channelId: id, ...(body.channel !== undefined ? { channel: body.channel.trim() } : {}) } };
}

/** The channel id in a youtube.com/channel/UC… URL; undefined for handles (/@name), /c/ and /user/ addresses. */
function channelIdInUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid("channel", "must be a channel URL (https://www.youtube.com/channel/UC…)");
  }
  const host = url.hostname.toLowerCase().replace(/^(www|m)\./, "");
  if (host !== "youtube.com" || (url.protocol !== "https:" && url.protocol !== "http:")) throw invalid("channel", "must be a youtube.com channel URL");
  const m = /^\/channel\/([^/]+)\/?/.exec(url.pathname);
  return m?.[1];
}

function xTarget(body: CreateTargetInput): Target {
  const raw = (body.username ?? body.handle)?.trim().replace(/^@/, "");
  const field = body.username !== undefined ? "username" : "handle";
  if (raw === undefined) throw invalid("username", "is required for x_articles");
  if (!xUsernamePattern.test(raw)) throw invalid(field, "must be an X username: 1-15 letters, digits or _");
  return { key: raw.toLowerCase(), defaultName: `@${raw}`, config: { username: raw } };
}
