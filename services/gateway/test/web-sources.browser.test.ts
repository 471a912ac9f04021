// The Sources settings screen in a real browser: Debian's Chromium, driven by playwright-core, against a test Trove
// whose feeds (RSS and the YouTube channel feed, TROVE_YOUTUBE_FEED_URL) come from a local server and whose inbox
// mail arrives over SMTP on loopback (TROVE_SMTP_PORT). Add a source of each type, change a source's settings, read
// an inbox's confirmation and mail, import OPML, delete with the in-page confirmation; an RSS source given by a
// site's address (its feed found from the page; a site with none refused). Where /usr/bin/chromium is
// missing the suite is a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTransport } from "nodemailer";
import type { Page } from "playwright-core";
import { chromiumInstalled as installed, chromiumSuite, eventually, freePort, startWebApp, type TestTrove, type WebApp } from "@trove/testing";

const slow = 60_000;
const inboxDomain = "in.trove.test";

let app: WebApp;
let trove: TestTrove;
let feeds: { url: string; paths: string[]; stop(): void };
let smtpPort: number;
let tmp: string;

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const now = () => Math.floor(Date.now() / 1000);

function rss(title: string, entries: string[]): string {
  const items = entries
    .map(
      (t, n) =>
        `<item><title>${esc(t)}</title><link>http://127.0.0.1:9/${encodeURIComponent(title)}/${n}</link><guid isPermaLink="false">${esc(title)}-${n}</guid>` +
        `<pubDate>${new Date((now() - n * 60) * 1000).toUTCString()}</pubDate><description>${esc(`<p>${t}: enough words here to be kept as the item's own text.</p>`)}</description></item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>${esc(title)}</title><link>http://127.0.0.1:9/</link>${items}</channel></rss>`;
}

const channelId = "UCwebSourcesTest0000000A";
function youtubeFeed(): string {
  const at = new Date((now() - 60) * 1000).toISOString();
  return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">` +
    `<id>yt:channel:${channelId}</id><yt:channelId>${channelId}</yt:channelId><title>Tube Channel</title><link rel="alternate" href="https://www.youtube.com/channel/${channelId}"/>` +
    `<entry><id>yt:video:vid1</id><yt:videoId>vid1</yt:videoId><yt:channelId>${channelId}</yt:channelId><title>Planing a board</title>` +
    `<link rel="alternate" href="https://www.youtube.com/watch?v=vid1"/><author><name>Tube Channel</name></author><published>${at}</published><updated>${at}</updated>` +
    `<media:group><media:title>Planing a board</media:title><media:description>How to plane a board flat.</media:description></media:group></entry></feed>`;
}

/** A local feed server: /rss/<title>.xml answers an RSS feed of that title with two entries; /yt/videos.xml the channel. */
function startFeeds() {
  const paths: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      paths.push(url.pathname + url.search);
      const feed = /^\/rss\/([^/]+)\.xml$/.exec(url.pathname);
      if (feed) {
        const title = decodeURIComponent(feed[1]!);
        return new Response(rss(title, [`${title} entry one`, `${title} entry two`]), { headers: { "content-type": "application/rss+xml" } });
      }
      if (url.pathname === "/yt/videos.xml" && url.searchParams.get("channel_id") === channelId) {
        return new Response(youtubeFeed(), { headers: { "content-type": "application/atom+xml" } });
      }
      return new Response("not here", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, paths, stop: () => server.stop(true) };
}

/**
 * A local web site: each of `pages` answered as itself (a string as HTML), anything else 404, so the common feed
 * paths the server tries after a page's own links (/feed, /rss.xml, /atom.xml, /feed.xml, /index.xml) find nothing
 * unless a page is given for one.
 */
function startSite(pages: Record<string, string | (() => Response)>) {
  const paths: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      paths.push(path);
      const page = pages[path];
      if (page === undefined) return new Response("not here", { status: 404 });
      return typeof page === "string" ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) : page();
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, paths, stop: () => server.stop(true) };
}

/** Sends one message to Trove's SMTP listener, as a mail provider would (Gmail's forwarding confirmation here). */
async function sendMail(to: string, from: string, subject: string, text: string): Promise<void> {
  const transport = createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: `Gmail Team <${from}>`, to, subject, text });
  } finally {
    transport.close();
  }
}

/** A new page at the Sources screen (or `path`), signed out. */
const open = (path = "/settings/sources") => app.open(path);

async function signIn(page: Page): Promise<void> {
  await app.signIn(page);
  await page.getByRole("heading", { name: "Sources", exact: true }).waitFor();
}

async function createFeed(title: string): Promise<{ id: string; name: string }> {
  const res = await trove.api("/api/sources", { method: "POST", json: { type: "rss", feedUrl: `${feeds.url}/rss/${encodeURIComponent(title)}.xml` } });
  expect(res.status).toBe(200);
  return (await res.json()).source;
}

const offOrigin = (urls: string[]) => app.offOrigin(urls);

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the Sources screen in Chromium"), () => {
  beforeAll(async () => {
    if (!installed) return;
    feeds = startFeeds();
    smtpPort = await freePort();
    tmp = mkdtempSync(join(tmpdir(), "trove-web-sources-"));
    app = await startWebApp({
      env: { TROVE_SMTP_PORT: String(smtpPort), TROVE_INBOX_DOMAIN: inboxDomain, TROVE_YOUTUBE_FEED_URL: `${feeds.url}/yt/videos.xml` },
    });
    trove = app.trove;
  }, slow);
  afterAll(async () => {
    await app?.stop();
    feeds?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  inChromium("add an RSS feed, a YouTube channel and an X account; the API's refusal of a @handle is shown", async () => {
    const { page, errors, requests } = await open();
    try {
      await signIn(page);
      const form = page.getByRole("form", { name: "New feed" });

      // RSS: the feed's title names the source, and its two entries are counted on its row.
      await form.getByLabel("Type").selectOption("rss");
      await form.getByLabel("Feed or site").fill(`${feeds.url}/rss/Web%20Feed.xml`);
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("status").getByText("Added Web Feed. 2 items added.").waitFor();
      const rssRow = page.getByRole("listitem", { name: "Source Web Feed" });
      await rssRow.getByText("RSS feed · syncing · 2 items").waitFor();
      expect(await rssRow.getByText("last read").count()).toBe(1);

      // YouTube: a handle cannot be looked up offline, and the API's message says so.
      await form.getByLabel("Type").selectOption({ label: "YouTube channel" });
      await form.getByLabel("Channel", { exact: true }).fill("@somebody");
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("alert").getByText("cannot be resolved to a channel id without the network").waitFor();
      // A channel URL is read from the local feed server, by its channel id.
      await form.getByLabel("Channel", { exact: true }).fill(`https://www.youtube.com/channel/${channelId}`);
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("status").getByText("Added Tube Channel. 1 item added.").waitFor();
      await page.getByRole("listitem", { name: "Source Tube Channel" }).getByText("YouTube channel · syncing · 1 item").waitFor();
      expect(feeds.paths).toContain(`/yt/videos.xml?channel_id=${channelId}`);

      // X: created, and its row says why it cannot run here (no RSS bridge configured).
      await form.getByLabel("Type").selectOption({ label: "X articles" });
      await form.getByLabel("X username").fill("@trove_reader");
      await form.getByRole("button", { name: "Add" }).click();
      const xRow = page.getByRole("listitem", { name: "Source @trove_reader" });
      await xRow.getByText("last error:").waitFor();
      expect(await xRow.innerText()).toContain("TROVE_X_RSS_URL_TEMPLATE");

      const stored = (await (await trove.api("/api/sources?limit=1000")).json()).sources as { type: string; name: string; target: string }[];
      expect(stored.filter((s) => ["Web Feed", "Tube Channel", "@trove_reader"].includes(s.name)).map((s) => [s.type, s.target]).sort()).toEqual(
        [
          ["rss", `${feeds.url}/rss/Web%20Feed.xml`],
          ["x_articles", "trove_reader"],
          ["youtube_channel", channelId],
        ].sort(),
      );
      expect(offOrigin(requests)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("add an RSS source by a site's address: the feed its page names is followed; a site with none is refused", async () => {
    const site = startSite({
      "/": `<!doctype html><html><head><title>A site</title><link rel="alternate" type="application/rss+xml" title="Its feed" href="/feed.xml"></head><body><p>Hello.</p></body></html>`,
      "/feed.xml": () => new Response(rss("Site Feed", ["Site Feed entry one", "Site Feed entry two"]), { headers: { "content-type": "application/rss+xml" } }),
    });
    const bare = startSite({ "/": `<!doctype html><html><head><title>No feed here</title></head><body><p>Nothing to follow.</p></body></html>` });
    const { page, errors, requests } = await open();
    try {
      await signIn(page);
      const form = page.getByRole("form", { name: "New feed" });
      await form.getByLabel("Type").selectOption("rss");

      // The site's page, not its feed: the server reads the page's <link rel="alternate"> and follows that feed.
      await form.getByLabel("Feed or site").fill(`${site.url}/`);
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("status").getByText("Added Site Feed. 2 items added.").waitFor();
      await page.getByRole("listitem", { name: "Source Site Feed" }).getByText("RSS feed · syncing · 2 items").waitFor();
      const stored = (await (await trove.api("/api/sources?limit=1000")).json()).sources as { type: string; name: string; target: string }[];
      expect(stored.filter((s) => s.name === "Site Feed").map((s) => [s.type, s.target])).toEqual([["rss", `${site.url}/feed.xml`]]);
      expect(site.paths).toContain("/");

      // A page that names no feed, on a site where none of the usual feed paths is one: the API's message is shown.
      await form.getByLabel("Feed or site").fill(`${bare.url}/`);
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("alert").getByText(`no feed found at ${bare.url}/`).waitFor();
      expect(bare.paths).toEqual(expect.arrayContaining(["/", "/feed", "/rss.xml", "/atom.xml", "/feed.xml", "/index.xml"]));
      // The same refusal through the API names its code, and no source was made from the bare site.
      const refused = await trove.api("/api/sources", { method: "POST", json: { type: "rss", input: `${bare.url}/` } });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toBe("feed_not_found");
      const after = (await (await trove.api("/api/sources?limit=1000")).json()).sources as { target: string }[];
      expect(after.filter((s) => s.target.startsWith(bare.url))).toEqual([]);

      expect(offOrigin(requests)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
      site.stop();
      bare.stop();
    }
  }, slow);

  inChromium("change a source's name, default tags, a smart tag rule and rollup; after a reload they are kept", async () => {
    const src = await createFeed("Settings Feed");
    const { page, errors } = await open();
    try {
      await signIn(page);
      await page.getByRole("listitem", { name: "Source Settings Feed" }).getByRole("button", { name: "Settings" }).click();
      const form = page.getByRole("form", { name: "Settings of Settings Feed" });
      await form.getByLabel("Name").fill("Renamed Feed");
      await form.getByLabel("Minutes between polls").fill("90");
      await form.getByLabel("Default tags").fill("reading, feeds");
      await form.getByText("No rules.").waitFor();
      await form.getByRole("button", { name: "Add rule" }).click();
      const rule = form.getByRole("group", { name: "Rule 1" });
      await rule.getByLabel("Field").selectOption("title");
      await rule.getByLabel("Contains").fill("rust");
      await rule.getByLabel("Tags").fill("rust, programming");
      // A second, half-filled rule is refused before anything is sent; removing it lets the save through.
      await form.getByRole("button", { name: "Add rule" }).click();
      await form.getByRole("group", { name: "Rule 2" }).getByLabel("Contains").fill("go");
      await form.getByRole("button", { name: "Save settings" }).click();
      await form.getByRole("alert").getByText("Rule 2: give at least one tag.").waitFor();
      await form.getByRole("button", { name: "Remove rule 2" }).click();
      await form.getByLabel("Rollup: one digest item per run").check();
      await form.getByRole("button", { name: "Save settings" }).click();
      // The form is named after the source, so it now bears the new name.
      await page.getByRole("form", { name: "Settings of Renamed Feed" }).getByRole("status").getByText("Saved.").waitFor();
      await page.getByRole("listitem", { name: "Source Renamed Feed" }).waitFor();

      await page.reload();
      const row = page.getByRole("listitem", { name: "Source Renamed Feed" });
      await row.getByRole("button", { name: "Settings" }).click();
      const again = page.getByRole("form", { name: "Settings of Renamed Feed" });
      await again.getByRole("group", { name: "Rule 1" }).waitFor();
      expect(await again.getByLabel("Name").inputValue()).toBe("Renamed Feed");
      expect(await again.getByLabel("Minutes between polls").inputValue()).toBe("90");
      expect(await again.getByLabel("Default tags").inputValue()).toBe("reading, feeds");
      expect(await again.getByLabel("Rollup: one digest item per run").isChecked()).toBe(true);
      expect(await again.getByLabel("Add a summary to new items").isChecked()).toBe(false);
      const kept = again.getByRole("group", { name: "Rule 1" });
      expect(await kept.getByLabel("Field").inputValue()).toBe("title");
      expect(await kept.getByLabel("Contains").inputValue()).toBe("rust");
      expect(await kept.getByLabel("Tags").inputValue()).toBe("rust, programming");
      expect(await again.getByRole("group", { name: "Rule 2" }).count()).toBe(0);

      const stored = (await (await trove.api(`/api/sources/${src.id}?include=settings`)).json()).source;
      expect(stored).toMatchObject({
        name: "Renamed Feed",
        pollEveryMin: 90,
        settings: {
          defaultTags: ["reading", "feeds"],
          smartTagRules: [{ field: "title", contains: "rust", tags: ["rust", "programming"] }],
          expandFullContent: false,
          autoSummarize: false,
          rollupEnabled: true,
        },
      });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("an email inbox: its address (copied), a provider's confirmation mail sent over SMTP, and its Mail", async () => {
    const { page, errors, requests } = await open();
    try {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: trove.url });
      await signIn(page);
      const form = page.getByRole("form", { name: "New feed" });
      await form.getByLabel("Type").selectOption({ label: "Email inbox" });
      await expect(form.getByLabel("with its 10 newest entries").count()).resolves.toBe(0);
      await form.getByLabel("Name").fill("Forwarded mail");
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("status").getByText("Added Forwarded mail.").waitFor();
      const row = page.getByRole("listitem", { name: "Source Forwarded mail" });
      const address = (await row.locator(".inbox-address code").innerText()).trim();
      expect(address).toMatch(new RegExp(`^[a-z2-7]{20}@${inboxDomain.replaceAll(".", "\\.")}$`));
      await row.getByRole("button", { name: "Copy address" }).click();
      await row.getByRole("status").getByText("Copied.").waitFor();
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(address);

      await row.getByRole("button", { name: "Confirmation" }).click();
      const confirmation = row.getByRole("region", { name: "Confirmation" });
      await confirmation.getByText("No confirmation mail yet.").waitFor();
      await row.getByRole("button", { name: "Mail" }).click();
      const mail = row.getByRole("region", { name: "Mail" });
      await mail.getByText("No mail yet.").waitFor();

      // As Gmail asks an address to confirm it may forward to it: a code and a link in the text.
      const code = "482913576";
      const link = `https://mail-settings.example.invalid/mail/vf-${code}-confirm`;
      const subject = `(#${code}) Gmail Forwarding Confirmation - Receive Mail from someone@example.test`;
      await sendMail(
        address,
        "forwarding-noreply@google.example",
        subject,
        `someone@example.test has requested to automatically forward mail to your email address.\n\nConfirmation code: ${code}\n\n` +
          `To allow it, please click the link below to confirm the request:\n\n${link}\n`,
      );
      await eventually(async () => (await (await trove.api(`/api/sources/${(await sourceNamed("Forwarded mail")).id}/messages`)).json()).messages.length === 1);

      await confirmation.getByRole("button", { name: "Refresh" }).click();
      await confirmation.getByText(code, { exact: true }).waitFor();
      expect(await confirmation.getByRole("link", { name: link }).getAttribute("href")).toBe(link);
      await confirmation.getByText("forwarding-noreply@google.example").waitFor();

      await mail.getByRole("button", { name: "Refresh" }).click();
      const message = mail.getByRole("row").filter({ hasText: "forwarding-noreply@google.example" });
      await message.getByText("added").waitFor();
      await message.getByRole("link", { name: subject }).click();
      await page.getByRole("heading", { name: subject }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/items\/[\w-]+$/);
      // The confirmation link is shown, never followed.
      expect(offOrigin(requests)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("import an OPML file: one feed followed, one outline refused with its reason", async () => {
    const file = join(tmp, "feeds.opml");
    writeFileSync(
      file,
      `<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>Mine</title></head><body>` +
        `<outline text="Tech"><outline type="rss" text="Opml Feed" title="Opml Feed" xmlUrl="${feeds.url}/rss/Opml%20Feed.xml"/></outline>` +
        `<outline type="rss" text="Broken" title="Broken" xmlUrl="ftp://feeds.example.invalid/feed.xml"/>` +
        `</body></opml>`,
    );
    const { page, errors } = await open();
    try {
      await signIn(page);
      const form = page.getByRole("form", { name: "Import feeds from OPML" });
      await form.getByLabel("OPML file").setInputFiles(file);
      await form.getByRole("button", { name: "Import" }).click();
      await page.getByRole("status").getByText("Imported: 1 created, 0 already followed, 1 invalid.").waitFor();
      const invalid = page.getByRole("list", { name: "Invalid outlines" });
      await invalid.getByText("Broken (ftp://feeds.example.invalid/feed.xml)").waitFor();
      expect(await invalid.innerText()).toContain("ftp: is not fetched");
      await page.getByRole("listitem", { name: "Source Opml Feed" }).waitFor();
      const stored = await sourceNamed("Opml Feed");
      const full = (await (await trove.api(`/api/sources/${stored.id}?include=settings`)).json()).source;
      expect(full.settings.defaultTags).toEqual(["Tech"]);

      // The same file again: followed already, nothing new.
      await form.getByLabel("OPML file").setInputFiles(file);
      await form.getByRole("button", { name: "Import" }).click();
      await page.getByRole("status").getByText("Imported: 0 created, 1 already followed, 1 invalid.").waitFor();
      expect(await page.getByRole("listitem", { name: "Source Opml Feed" }).count()).toBe(1);
      // The download link stays.
      expect(await page.getByRole("link", { name: "Download all feeds as OPML" }).getAttribute("href")).toBe("/api/sources/export-opml");
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("delete a source after the page asks; Cancel keeps it", async () => {
    const src = await createFeed("Doomed Feed");
    await createFeed("Survivor Feed");
    const { page, errors } = await open();
    try {
      await signIn(page);
      const row = page.getByRole("listitem", { name: "Source Doomed Feed" });
      await row.getByRole("button", { name: "Delete", exact: true }).click();
      const ask = row.getByRole("group", { name: "Delete Doomed Feed?" });
      await ask.getByText("the items it added stay in the library").waitFor();
      // The safe answer has the focus; Cancel (here by the keyboard) leaves the source as it was.
      expect(await ask.getByRole("button", { name: "Cancel" }).evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
      await page.keyboard.press("Enter");
      await ask.waitFor({ state: "detached" });
      expect((await trove.api(`/api/sources/${src.id}`)).status).toBe(200);

      await row.getByRole("button", { name: "Delete", exact: true }).click();
      await ask.getByRole("button", { name: "Yes, delete" }).click();
      await page.getByRole("status").getByText("Deleted Doomed Feed.").waitFor();
      await row.waitFor({ state: "detached" });
      expect((await trove.api(`/api/sources/${src.id}`)).status).toBe(404);
      await page.reload();
      await page.getByRole("listitem", { name: "Source Survivor Feed" }).waitFor();
      expect(await page.getByRole("listitem", { name: "Source Doomed Feed" }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});

async function sourceNamed(name: string): Promise<{ id: string; name: string }> {
  const all = (await (await trove.api("/api/sources?limit=1000")).json()).sources as { id: string; name: string }[];
  const found = all.find((s) => s.name === name);
  if (!found) throw new Error(`no source named ${name}`);
  return found;
}
