// The reader's image modes in Chromium against a 'tracker': a server on 127.0.0.1 at another port that counts every
// request it gets. A saved Markdown page's HTML names the tracker in every way a page can load something without a
// script (a protocol-relative address, "/\host", a picture's source, a video's poster, an SVG image by href and by
// xlink:href, a table background, srcset, an SVG paint). Straight from their sites each image reaches it; through
// Trove and "not at all" nothing does, and the page's own policy refuses an image the sanitiser would have missed.
// Where /usr/bin/chromium is missing the suite is a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumInstalled as installed, chromiumSuite, eventually, startWebApp, type WatchedPage, type WebApp } from "@trove/testing";

const slow = 60_000;
const modes = ["proxy", "none", "direct"] as const;
type Mode = (typeof modes)[number];

const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082",
  "hex",
);

/** Paths (under /<mode>/) that Chromium requests from the tracker when nothing stops it. */
const loads = ["protocol-relative.png", "backslash.png", "picture-source.png", "poster.png", "svg-image.png", "svg-xlink.png", "table-background.png", "srcset.png"];

let app: WebApp;
let tracker: ReturnType<typeof Bun.serve>;
let site: ReturnType<typeof Bun.serve>;
const hits: string[] = [];
const trackerHost = () => `127.0.0.1:${tracker.port}`;
const hitsUnder = (mode: Mode | "injected") => hits.filter((p) => p.startsWith(`/${mode}/`));

/** A Markdown page whose HTML loads from the tracker in every way the reader must hold back. */
function page(mode: Mode): string {
  const t = `${trackerHost()}/${mode}`;
  return [
    `# Tracked page ${mode}`,
    "",
    `A page that tries every way an article can make a browser call another site while it is read (${mode}).`,
    "",
    `<p><img src="//${t}/protocol-relative.png" alt="protocol relative"> <img src="/\\${t}/backslash.png" alt="backslash"></p>`,
    "",
    `<p><picture><source srcset="http://${t}/picture-source.png"><img src="data:image/png;base64,${png.toString("base64")}" alt="picture"></picture></p>`,
    "",
    `<p><video poster="http://${t}/poster.png" width="20" height="20"></video></p>`,
    "",
    `<p><svg width="20" height="20"><image href="http://${t}/svg-image.png" width="20" height="20"></image></svg>` +
      `<svg width="20" height="20"><image xlink:href="http://${t}/svg-xlink.png" width="20" height="20"></image></svg></p>`,
    "",
    `<table background="http://${t}/table-background.png"><tr><td>a table with a background</td></tr></table>`,
    "",
    `<p><img srcset="http://${t}/srcset.png 1x" alt="candidates only"></p>`,
    "",
    `<p><svg width="20" height="20"><rect width="20" height="20" fill="url(http://${t}/paint.svg#p)"></rect></svg></p>`,
    "",
    `The end of the ${mode} page.`,
  ].join("\n");
}

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the reader's images in Chromium, against a tracker"), () => {
  beforeAll(async () => {
    if (!installed) return;
    tracker = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        hits.push(new URL(req.url).pathname);
        return new Response(png, { headers: { "content-type": "image/png", "access-control-allow-origin": "*" } });
      },
    });
    site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const mode = /^\/(proxy|none|direct)\.md$/.exec(new URL(req.url).pathname)?.[1] as Mode | undefined;
        return mode ? new Response(page(mode), { headers: { "content-type": "text/markdown; charset=utf-8" } }) : new Response("not here", { status: 404 });
      },
    });
    app = await startWebApp();
  }, slow);
  afterAll(async () => {
    await app?.stop();
    tracker?.stop(true);
    site?.stop(true);
  });

  /** Saves the mode's page and opens it in the reader, signed in, with that mode chosen on this browser. */
  async function read(mode: Mode): Promise<WatchedPage & { id: string }> {
    const saved = await (await app.trove.api("/api/ingest", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/${mode}.md` } })).json();
    expect(saved).toMatchObject({ extracted: true });
    const watched = await app.open("/");
    await app.signIn(watched.page);
    await watched.page.evaluate((m) => localStorage.setItem("trove.images", m), mode);
    await watched.page.goto(`${app.trove.url}/items/${saved.id}`);
    await watched.page.getByText(`The end of the ${mode} page.`).waitFor();
    return { ...watched, id: saved.id };
  }

  /** Adds an image the sanitiser never saw, as a hole in it would leave one; resolves once it loaded or was refused. */
  async function inject(watched: WatchedPage, name: string): Promise<"loaded" | "refused"> {
    return watched.page.evaluate(
      (src) =>
        new Promise<"loaded" | "refused">((resolve) => {
          const doc = (globalThis as any).document;
          const img = doc.createElement("img");
          img.onload = () => resolve("loaded");
          img.onerror = () => resolve("refused");
          img.src = src;
          doc.body.append(img);
        }),
      `http://${trackerHost()}/injected/${name}.png`,
    );
  }

  for (const mode of ["proxy", "none"] as const) {
    inChromium(`${mode}: nothing in the article names or reaches the tracker, and the page's policy refuses what would`, async () => {
      const watched = await read(mode);
      try {
        const article = watched.page.locator("article.content");
        // Every way in was rewritten or dropped before the page saw it: the HTML it shows names no other site.
        expect(await article.evaluate((el) => el.innerHTML)).not.toContain(trackerHost());
        // The two images at other sites keep their description and lose their address; the picture keeps its own
        // data: image, and the image that had only candidates keeps none.
        expect(await article.locator("img.image-off").count()).toBe(2);
        expect(await article.locator("img[src]").count()).toBe(1);
        // The browser holds the mode too: an image added behind the sanitiser's back is refused, never requested.
        expect(await inject(watched, mode)).toBe("refused");
        await eventually(() => watched.violations.some((v) => v.includes(`/injected/${mode}.png`)));
        expect(watched.violations.filter((v) => !v.includes("/injected/"))).toEqual([]);
        expect(hitsUnder("injected")).toEqual([]);
        expect(hitsUnder(mode)).toEqual([]);
        expect(app.offOrigin(watched.requests).filter((u) => !u.includes("/injected/"))).toEqual([]);
        expect(watched.errors).toEqual([]);
      } finally {
        await watched.page.context().close();
      }
    }, slow);
  }

  inChromium("direct, chosen in the app after a narrower mode: the reader reloads, every way in reaches the tracker; the others never did", async () => {
    // The page starts in "none", then the account screen switches to images from their sites and the reader is
    // opened again without leaving the app: the narrower policy must not outlive the choice.
    const watched = await read("none");
    const { page } = watched;
    try {
      const saved = await (await app.trove.api("/api/ingest", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/direct.md` } })).json();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "alice@example.test" }).click();
      await page.getByLabel("From their site, as you scroll to them").check();
      await page.evaluate((id) => {
        const w = globalThis as any;
        w.history.pushState(null, "", `/items/${id}`);
        w.dispatchEvent(new w.PopStateEvent("popstate"));
      }, saved.id);
      await page.getByText("The end of the direct page.").waitFor();
      await eventually(() => loads.every((p) => hitsUnder("direct").includes(`/direct/${p}`)), 20_000);
      expect(await inject(watched, "direct")).toBe("loaded");
      expect(hitsUnder("injected")).toEqual(["/injected/direct.png"]);
      // The tracker has now seen everything the direct page loads; the pages read through Trove and with no
      // images, opened before, never reached it (nor did the server, which fetches only recorded images).
      expect(hitsUnder("proxy")).toEqual([]);
      expect(hitsUnder("none")).toEqual([]);
      expect(watched.errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});
