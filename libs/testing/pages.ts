// A local web server with the fixture pages ingest tests need, on 127.0.0.1. It counts hits per path,
// so a test can prove a page was (or was not) fetched, and tells a test when a request has arrived.
import iconv from "iconv-lite";

export const articleHtml = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Parsing Things Well | Example Blog</title>
<meta property="og:title" content="Parsing Things Well">
<meta name="author" content="Ada Example">
<meta property="article:published_time" content="2026-03-04T10:00:00Z">
<meta property="og:site_name" content="Example Blog">
<link rel="icon" href="/static/icon.png">
</head><body>
<nav class="site-nav"><a href="/">Home</a> <a href="/about">About</a> <a href="/archive">Archive</a></nav>
<header><h1 class="site-title">Example Blog</h1></header>
<main><article>
<h1>Parsing Things Well</h1>
<p class="byline">By Ada Example</p>
<p>Parsers turn text into structure. This article walks through a small recursive descent parser and how to test it well,
with examples in two languages and a table comparing approaches. Read the <a href="/guide/start">getting started guide</a> first.</p>
<div class="share-buttons social-share"><a href="https://share.example.test/?u=1">Share on Social</a> <a href="#">Tweet this</a></div>
<h2>A first example</h2>
<p>Here is the tokenizer, written in TypeScript, which splits the input into tokens before parsing begins in earnest.</p>
<pre><code class="language-typescript">export function tokenize(input: string): string[] {
  return input.split(/\\s+/).filter(Boolean);
}</code></pre>
<p>And the same idea in Python, for comparison, because many readers asked for it in the comments last week.</p>
<pre><code class="language-python">def tokenize(text):
    return [t for t in text.split() if t]</code></pre>
<figure><img src="/images/diagram.png" alt="Parse tree diagram" width="640" height="480"><figcaption>A parse tree</figcaption></figure>
<div class="ad-container advertisement"><p>BUY CHEAP WIDGETS NOW</p></div>
<h2>Comparing approaches</h2>
<p>Each approach has trade-offs that matter in practice, summarised in the table below for quick reference.</p>
<table><thead><tr><th>Approach</th><th>Speed</th><th>Clarity</th></tr></thead>
<tbody><tr><td>Recursive descent</td><td>Fast</td><td>High</td></tr><tr><td>Parser generator</td><td>Faster</td><td>Medium</td></tr></tbody></table>
<p>Unique sentence for highlighting: the quick brown parser jumps over the lazy lexer.</p>
<img src="images/second.jpg" alt="Second figure">
<p>In conclusion, test your parser with many small inputs and a few large ones, and measure before you optimise anything.</p>
</article></main>
<aside class="related-posts"><h3>Related posts</h3><ul><li><a href="/p/1">Another post</a></li></ul></aside>
<footer class="site-footer"><p>Copyright 2026 Example Blog. All rights reserved.</p></footer>
</body></html>`;

export interface PageServer {
  url: string;
  hits: Map<string, number>;
  /** Resolves once `path` has been requested `count` times in all: the request has reached this server. */
  reached(path: string, count?: number): Promise<void>;
  /**
   * Lets /held answer: every request to it waits here until the test calls release(), so a test decides when a
   * slow page answers instead of racing a clock. Afterwards /held answers at once.
   */
  release(): void;
  stop(): void;
}

/** The article /held answers with once released. */
export const heldTitle = "Held Until Released";

const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });

export function startPageServer(): PageServer {
  const hits = new Map<string, number>();
  const waiters: { path: string; count: number; resolve: () => void }[] = [];
  const released = Promise.withResolvers<void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const { pathname } = new URL(req.url);
      const n = (hits.get(pathname) ?? 0) + 1;
      hits.set(pathname, n);
      for (const w of waiters.filter((w) => w.path === pathname && w.count <= n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (pathname === "/held") {
        await released.promise;
        return html(articleHtml.replaceAll("Parsing Things Well", heldTitle));
      }
      if (pathname === "/article" || pathname === "/article-copy") return html(articleHtml);
      if (pathname === "/missing") return new Response("<h1>Not found</h1>", { status: 404, headers: { "content-type": "text/html" } });
      const redirect = /^\/redirect\/(\d+)$/.exec(pathname);
      if (redirect) {
        const n = Number(redirect[1]);
        return n === 0 ? Response.redirect(`${new URL(req.url).origin}/article`, 302) : Response.redirect(`/redirect/${n - 1}`, 302);
      }
      if (pathname === "/slow") {
        await Bun.sleep(1_500);
        return html(articleHtml.replaceAll("Parsing Things Well", "Slowly Parsing Things Well"));
      }
      if (pathname === "/file.pdf") return new Response("%PDF-1.7\n%fake pdf bytes\n", { headers: { "content-type": "application/pdf" } });
      if (pathname === "/notes.txt") return new Response("Plain text notes.\n\nSecond paragraph of the notes file.\n", { headers: { "content-type": "text/plain; charset=utf-8" } });
      if (pathname === "/latin1") {
        const page = `<html><head><title>Caf\u00e9 cr\u00e8me</title></head><body><article><h1>Caf\u00e9 cr\u00e8me</h1><p>${"Un caf\u00e9 cr\u00e8me \u00e0 la fa\u00e7on de Paris, tr\u00e8s appr\u00e9ci\u00e9. ".repeat(8)}</p></article></body></html>`;
        return new Response(iconv.encode(page, "windows-1252"), { headers: { "content-type": "text/html; charset=windows-1252" } });
      }
      if (pathname === "/huge") {
        const para = `<p>${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(20)}</p>\n`;
        return html(`<html><head><title>Huge page</title></head><body><article><h1>Huge page</h1>${para.repeat(6_000)}</article></body></html>`);
      }
      if (pathname.startsWith("/images/")) return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } });
      return new Response("not here", { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    hits,
    reached: (path, count = 1) =>
      (hits.get(path) ?? 0) >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ path, count, resolve })),
    release: () => released.resolve(),
    stop: () => {
      released.resolve();
      server.stop(true);
    },
  };
}

/**
 * A response that sends all of `body` but its last bytes, then holds until `release()`: the moment a fetch of it
 * completes, and reading it begins, is the test's to choose. `holding` resolves once the first bytes are out.
 */
export function heldResponse(body: string, type: string) {
  let held!: () => void;
  let release!: () => void;
  const holding = new Promise<void>((r) => (held = r));
  const released = new Promise<void>((r) => (release = r));
  const bytes = new TextEncoder().encode(body);
  const respond = () =>
    new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(bytes.slice(0, -16));
          held();
          await released;
          controller.enqueue(bytes.slice(-16));
          controller.close();
        },
      }),
      { headers: { "content-type": type } },
    );
  return { respond, holding, release };
}
