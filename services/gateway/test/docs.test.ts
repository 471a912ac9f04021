// The API reference at /api/docs comes from Trove itself: the page references nothing outside its origin, every
// asset it names is served with its type and a long cache, and its Content-Security-Policy allows this origin only.
// (docs.browser.test.ts loads it in Chromium.) Real: a whole Trove over HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
let pageUrl = "";
let html = "";
beforeAll(async () => {
  trove = await startTrove();
  pageUrl = `${trove.url}/api/docs`;
  html = await (await fetch(pageUrl)).text();
});
afterAll(() => trove.stop());

// Attributes through which HTML makes a browser load or follow a URL.
const urlAttributes = new Set(["src", "href", "srcset", "imagesrcset", "action", "formaction", "poster", "data", "xlink:href", "background", "ping", "manifest", "cite"]);
const cssUrls = (css: string) => [...css.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3/gs)].map((m) => m[2] ?? m[4]!);

/** Every URL in an HTML page (attributes, srcset entries, url() and @import in styles) and its inline scripts. */
async function scan(page: string) {
  const urls: string[] = [];
  const inlineScripts: string[] = [];
  let script = "";
  await new HTMLRewriter()
    .on("*", {
      element(el) {
        for (const [name, value] of el.attributes) {
          if (name === "srcset" || name === "imagesrcset") urls.push(...value.split(",").map((part) => part.trim().split(/\s+/)[0]!));
          else if (urlAttributes.has(name)) urls.push(value);
          else if (name === "style") urls.push(...cssUrls(value));
          else if (name === "content" && el.getAttribute("http-equiv")?.toLowerCase() === "refresh") urls.push(value.replace(/^[^;]*;\s*url=/i, ""));
        }
      },
    })
    .on("style", { text: (t) => void urls.push(...cssUrls(t.text)) })
    .on("script", {
      element(el) {
        script = "";
        el.onEndTag(() => void (el.hasAttribute("src") || !script.trim() || inlineScripts.push(script)));
      },
      text: (t) => void (script += t.text),
    })
    .transform(new Response(page))
    .text();
  return { urls, inlineScripts };
}

const sameOrigin = (url: string, base: string) => new URL(url, base).origin === new URL(base).origin;

describe("the docs page", () => {
  test("references only its own origin, through scripts and styles the CSP allows", async () => {
    const { urls, inlineScripts } = await scan(html);
    // The icon, two stylesheets, two scripts.
    expect(urls.length).toBe(5);
    for (const url of urls) {
      expect(url).toStartWith("/api/docs/assets/");
      expect(sameOrigin(url, pageUrl)).toBe(true);
    }
    // An inline script would be refused by script-src 'self': the page starts Swagger UI from a file.
    expect(inlineScripts).toEqual([]);
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i);
  });

  test("each referenced asset is served 200 with its type, a year's cache and nosniff; styles load nothing else", async () => {
    const { urls } = await scan(html);
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png$/ };
    for (const url of urls) {
      const res = await fetch(new URL(url, pageUrl));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(types[url.split(".").at(-1)!]!);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await res.text();
      expect(body.length).toBeGreaterThan(0);
      if (url.endsWith(".css")) {
        for (const ref of cssUrls(body)) expect(ref.startsWith("data:") || sameOrigin(ref, new URL(url, pageUrl).href)).toBe(true);
      }
    }
  });

  test("Swagger UI is the pinned package's own file, and scripts and styles are sent gzipped when asked", async () => {
    const { urls } = await scan(html);
    const bundle = urls.find((u) => u.endsWith("/swagger-ui-bundle.js"))!;
    const shipped = await Bun.file(fileURLToPath(import.meta.resolve("swagger-ui-dist/swagger-ui-bundle.js"))).text();
    const plain = await fetch(new URL(bundle, pageUrl), { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(shipped);
    const zipped = await fetch(new URL(bundle, pageUrl), { headers: { "accept-encoding": "gzip" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(Number(zipped.headers.get("content-length"))).toBeLessThan(shipped.length / 2);
    expect(await zipped.text()).toBe(shipped);
  });

  test("an asset URL with another content hash is 404 not_found, never a stale or different file", async () => {
    const res = await fetch(`${trove.url}/api/docs/assets/0123456789abcdef/swagger-ui-bundle.js`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });

  test("its Content-Security-Policy lets nothing load from another origin", async () => {
    const res = await fetch(pageUrl);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));
    // Every fetch not named falls back to default-src 'none'.
    expect(directives.get("default-src")).toEqual(["'none'"]);
    for (const [name, sources] of directives) {
      if (!name.endsWith("-src")) continue;
      for (const source of sources) expect(["'self'", "'none'", "data:"]).toContain(source);
    }
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("base-uri")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
  });
});

describe("the OpenAPI document", () => {
  const committed = () => Bun.file(join(import.meta.dir, "..", "..", "..", "docs", "openapi.json")).json();
  const served = async (t: TestTrove): Promise<any> => {
    const res = await fetch(`${t.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    return res.json();
  };

  test("is the committed docs/openapi.json, without the docs routes, also after requests have been validated", async () => {
    // Elysia writes into schemas as it compiles them on first use: the document must not follow.
    expect((await trove.api("/api/ingest", { method: "POST", json: { url: "https://openapi.example.test/", html: "<p>x</p>" } })).status).toBe(200);
    expect((await trove.api("/api/items?limit=5")).status).toBe(200);
    expect((await trove.api("/api/health")).status).toBe(200);
    const doc = await served(trove);
    expect(doc).toEqual(await committed());
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/api/docs"))).toEqual([]);
    expect(doc.paths["/api/ingest"].post.summary).toBe("Save a web page");
    // A gateway built later in the same process starts from the contract as written, not from another's copies.
    const later = await startTrove();
    try {
      expect(await served(later)).toEqual(await committed());
    } finally {
      await later.stop();
    }
  });
});
