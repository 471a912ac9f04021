// Feed fixtures for the polling tests: RSS 2.0, RSS 1.0 (RDF), Atom and YouTube-style Atom documents, and a local
// server whose routes a test sets and whose requests it reads (with their conditional-GET headers).
export interface FixtureEntry {
  id: string;
  title: string;
  link?: string;
  /** Unix seconds. */
  at: number;
  html?: string;
  author?: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const iso = (at: number) => new Date(at * 1000).toISOString();

export function rss2(title: string, entries: FixtureEntry[]): string {
  const items = entries
    .map(
      (e) => `<item><title>${esc(e.title)}</title>${e.link ? `<link>${e.link}</link>` : ""}<guid isPermaLink="false">${e.id}</guid>` +
        `<pubDate>${new Date(e.at * 1000).toUTCString()}</pubDate><description>${esc(e.html ?? `<p>${e.title} body</p>`)}</description>` +
        `${e.author ? `<author>${esc(e.author)}</author>` : ""}</item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>${esc(title)}</title><link>http://site.test/</link>${items}</channel></rss>`;
}

export function rdf(title: string, entries: FixtureEntry[]): string {
  const items = entries
    .map((e) => `<item rdf:about="${e.link}"><title>${esc(e.title)}</title><link>${e.link}</link><description>${esc(e.html ?? e.title)}</description><dc:date>${iso(e.at)}</dc:date>${e.author ? `<dc:creator>${esc(e.author)}</dc:creator>` : ""}</item>`)
    .join("");
  return `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="http://site.test/"><title>${esc(title)}</title><link>http://site.test/</link></channel>${items}</rdf:RDF>`;
}

export function atom(title: string, entries: FixtureEntry[]): string {
  const items = entries
    .map((e) => `<entry><id>${e.id}</id><title>${esc(e.title)}</title>${e.link ? `<link rel="alternate" href="${e.link}"/>` : ""}<updated>${iso(e.at)}</updated><published>${iso(e.at)}</published><content type="html">${esc(e.html ?? `<p>${e.title} body</p>`)}</content>${e.author ? `<author><name>${esc(e.author)}</name></author>` : ""}</entry>`)
    .join("");
  return `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${esc(title)}</title><link href="http://site.test/"/><id>urn:feed</id><updated>${iso(0)}</updated>${items}</feed>`;
}

export function youtube(channelId: string, title: string, videos: { id: string; title: string; at: number; description: string }[]): string {
  const items = videos
    .map(
      (v) => `<entry><id>yt:video:${v.id}</id><yt:videoId>${v.id}</yt:videoId><yt:channelId>${channelId}</yt:channelId><title>${esc(v.title)}</title>` +
        `<link rel="alternate" href="https://www.youtube.com/watch?v=${v.id}"/><author><name>${esc(title)}</name></author><published>${iso(v.at)}</published><updated>${iso(v.at)}</updated>` +
        `<media:group><media:title>${esc(v.title)}</media:title><media:content url="https://www.youtube.com/v/${v.id}" type="application/x-shockwave-flash" width="640" height="390"/>` +
        `<media:thumbnail url="https://i.ytimg.com/vi/${v.id}/hqdefault.jpg" width="480" height="360"/><media:description>${esc(v.description)}</media:description></media:group></entry>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom"><id>yt:channel:${channelId}</id><yt:channelId>${channelId}</yt:channelId><title>${esc(title)}</title><link rel="alternate" href="https://www.youtube.com/channel/${channelId}"/>${items}</feed>`;
}

export interface SeenRequest {
  path: string;
  search: string;
  ifNoneMatch: string | null;
}

export type Route = (req: Request) => Response | Promise<Response>;

/** A local feed server: `routes` maps a path to its answer; every request is recorded. */
export function feedServer() {
  const routes = new Map<string, Route>();
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      requests.push({ path: url.pathname, search: url.search, ifNoneMatch: req.headers.get("if-none-match") });
      const route = routes.get(url.pathname);
      return route ? route(req) : new Response("not found", { status: 404 });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    base,
    requests,
    /** Requests made for one path. */
    hits: (path: string) => requests.filter((r) => r.path === path).length,
    /** Serves `body` (a function: read at each request) as a feed at `path`. */
    feed(path: string, body: string | (() => string), type = "application/rss+xml") {
      routes.set(path, () => new Response(typeof body === "function" ? body() : body, { headers: { "content-type": type } }));
      return `${base}${path}`;
    },
    route(path: string, r: Route) {
      routes.set(path, r);
      return `${base}${path}`;
    },
    stop: () => server.stop(true),
  };
}
