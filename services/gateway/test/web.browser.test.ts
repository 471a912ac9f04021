// The web app in a real browser: Debian's Chromium, driven by playwright-core, against a test Trove and a local
// page server. Sign in, save a page and read it, tag and archive it, search, reload and stay signed in, sign out;
// the app loads nothing from outside its origin. Where /usr/bin/chromium is missing the suite is a registered
// skip that says so (.ci/run installs Chromium when it can).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import {
  chromiumInstalled as installed,
  chromiumSuite,
  eventually,
  startWebApp,
  startWebhookReceiver,
  type PageServer,
  type TestTrove,
  type WebApp,
} from "@trove/testing";

const slow = 60_000;

let app: WebApp;
let trove: TestTrove;
let pages: PageServer;

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the web app in Chromium"), () => {
  beforeAll(async () => {
    if (!installed) return;
    app = await startWebApp();
    ({ trove, pages } = app);
  }, slow);
  afterAll(() => app?.stop());

  inChromium("sign in, save a page from a local server and read it; reload and still be signed in; sign out", async () => {
    const { page, requests, violations, errors } = await app.open("/");
    try {
      await page.getByRole("form", { name: "Sign in" }).waitFor();
      // A wrong password is said so, and nothing else happens.
      await page.getByLabel("Email").fill("alice@example.test");
      await page.getByLabel("Password").fill("not it at all");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").getByText("do not match").waitFor();
      await app.signIn(page);
      expect(app.offOrigin(requests)).toEqual([]);

      const url = `${pages.url}/article`;
      await page.getByLabel("Page URL").fill(url);
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").getByText("Saved.").waitFor();
      await page.getByRole("link", { name: "Parsing Things Well" }).click();
      await page.getByRole("heading", { name: "Parsing Things Well" }).waitFor();
      await page.getByText("the quick brown parser jumps over the lazy lexer").waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/items\/[\w-]+$/);
      // The article's furniture was left out, and its own text is there as rendered Markdown.
      expect(await page.locator("article.content").innerText()).not.toContain("BUY CHEAP WIDGETS");
      expect(await page.locator("article.content pre").count()).toBeGreaterThan(0);

      // The back button returns to the library; a reload keeps the session.
      await page.goBack();
      await page.getByLabel("Page URL").waitFor();
      await page.reload();
      await page.getByRole("link", { name: "Parsing Things Well" }).waitFor();

      await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("form", { name: "Sign in" }).waitFor();
      await page.reload();
      await page.getByRole("form", { name: "Sign in" }).waitFor();

      // Nothing loads from elsewhere: the article's images came through Trove (the default reading preference).
      expect(app.offOrigin(requests)).toEqual([]);
      expect(requests.some((u) => /\/api\/items\/[\w-]+\/media\/[\w-]+$/.test(u))).toBe(true);
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("select a sentence to highlight it with a note; it is drawn in place after a reload", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?highlight` } })).json();
    const { page, errors } = await app.open(`/items/${saved.id}`);
    try {
      await app.signIn(page);
      const sentence = "the quick brown parser jumps over the lazy lexer";
      await page.getByText(sentence).waitFor();
      // Select the sentence as a reader would, with the mouse, and let go.
      await page.evaluate((text: string) => {
        const doc = (globalThis as any).document;
        const root = doc.querySelector("article.content");
        const walker = doc.createTreeWalker(root, 4);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.data.indexOf(text);
          if (at < 0) continue;
          const range = doc.createRange();
          range.setStart(n, at);
          range.setEnd(n, at + text.length);
          const sel = (globalThis as any).getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          root.dispatchEvent(new (globalThis as any).MouseEvent("mouseup", { bubbles: true }));
          return;
        }
        throw new Error("sentence not found");
      }, sentence);
      const bar = page.getByRole("form", { name: "New highlight" });
      await bar.getByLabel("Note").fill("the key line");
      await bar.getByRole("button", { name: "Highlight" }).click();
      await page.locator("mark", { hasText: sentence }).waitFor();
      const stored = (await (await trove.api(`/api/items/${saved.id}/highlights`)).json()).highlights;
      expect(stored).toMatchObject([{ text: sentence, note: "the key line", prefix: expect.stringContaining("highlighting: ") }]);
      await page.reload();
      await page.locator("mark", { hasText: sentence }).waitFor();
      expect(await page.locator("mark").first().getAttribute("title")).toBe("the key line");
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("create a connected client and see its key once; revoke it and the key stops working", async () => {
    const { page, errors } = await app.open("/settings/clients");
    try {
      await app.signIn(page);
      await page.getByRole("heading", { name: "Connected clients" }).waitFor();
      const form = page.getByRole("form", { name: "New connected client" });
      await form.getByLabel("Name").fill("Reading script");
      await form.getByLabel("Access").selectOption("read_only");
      await form.getByRole("button", { name: "Create" }).click();
      const shown = page.getByRole("status", { name: "New key" });
      const key = (await shown.locator("code").innerText()).trim();
      expect(key).toMatch(/^trove_ck_/);
      await page.getByRole("button", { name: "Revoke Reading script" }).waitFor();
      expect((await trove.api("/api/items", { key })).status).toBe(200);
      // Once: the list never shows it again, nor does the page after a reload.
      await page.reload();
      await page.getByText("Reading script").waitFor();
      expect(await page.content()).not.toContain(key);
      await page.getByRole("button", { name: "Revoke Reading script" }).click();
      await page.getByText("Reading script").waitFor({ state: "detached" });
      expect((await trove.api("/api/items", { key })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("the keyboard: ? lists the shortcuts, j and k move between items, Enter opens one", async () => {
    const first = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/notes.txt` } })).json();
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      await page.locator(`a[href="/items/${first.id}"]`).waitFor();
      await page.keyboard.press("?");
      await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
      await page.keyboard.press("Escape");
      await page.keyboard.press("j");
      const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("href"));
      const top = await focused();
      expect(top).toMatch(/^\/items\//);
      await page.keyboard.press("j");
      await page.keyboard.press("k");
      expect(await focused()).toBe(top);
      await page.keyboard.press("Enter");
      await page.waitForURL(new RegExp(`${top}$`));
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("edit a note in two tabs: the second save meets the conflict screen, and keeping mine saves it on top", async () => {
    const created = await (await trove.api("/api/notes", { method: "POST", json: { title: "Shared plan", bodyMarkdown: "Step one." } })).json();
    const first = await app.open(`/notes/${created.note.id}`);
    try {
      await app.signIn(first.page);
      const second = await first.page.context().newPage();
      await second.goto(`${trove.url}/notes/${created.note.id}`);
      for (const page of [first.page, second]) await page.getByLabel("Text").waitFor();
      await first.page.getByLabel("Text").fill("Step one.\nStep two, from the first tab.");
      await first.page.getByRole("button", { name: "Save", exact: true }).click();
      await first.page.getByRole("status").getByText("Saved as revision 2").waitFor();

      await second.getByLabel("Text").fill("Step one, reworded in the second tab.");
      await second.getByRole("button", { name: "Save", exact: true }).click();
      await second.getByRole("heading", { name: "Someone else saved this note first" }).waitFor();
      expect(await second.getByRole("region", { name: "Theirs" }).innerText()).toContain("Step two, from the first tab.");
      expect(await second.getByRole("region", { name: "Mine" }).innerText()).toContain("reworded in the second tab");
      // Nothing was overwritten before the choice.
      expect((await (await trove.api(`/api/notes/${created.note.id}`)).json()).note).toMatchObject({ currentRevision: 2, bodyMarkdown: "Step one.\nStep two, from the first tab." });

      await second.getByRole("button", { name: "Keep mine" }).click();
      await second.getByRole("status").getByText("Saved as revision 3").waitFor();
      expect((await (await trove.api(`/api/notes/${created.note.id}`)).json()).note).toMatchObject({ currentRevision: 3, bodyMarkdown: "Step one, reworded in the second tab." });
      // The first revision's text is kept in the history.
      const history = (await (await trove.api(`/api/notes/${created.note.id}/history`)).json()).revisions;
      expect(history.map((r: { revisionNumber: number }) => r.revisionNumber)).toEqual([3, 2, 1]);
      await second.getByRole("button", { name: "Preview" }).click();
      await second.locator("article.content").getByText("Step one, reworded in the second tab.").waitFor();
      expect(first.errors).toEqual([]);
    } finally {
      await first.page.context().close();
    }
  }, slow);

  inChromium("create a webhook to a local receiver (secret shown once), send a test and see the delivery; pause and resume", async () => {
    const receiver = startWebhookReceiver();
    const { page, errors } = await app.open("/settings/webhooks");
    try {
      await app.signIn(page);
      const form = page.getByRole("form", { name: "New webhook" });
      await form.getByLabel("Name").fill("Local receiver");
      await form.getByLabel("URL").fill(`${receiver.url}/hook`);
      await form.getByRole("button", { name: "Create" }).click();
      const secret = (await page.getByRole("status", { name: "New secret" }).locator("code").innerText()).trim();
      expect(secret).toMatch(/^whsec_/);
      const row = page.getByRole("listitem", { name: "Webhook Local receiver" });
      await row.getByRole("button", { name: "Send test" }).click();
      await eventually(() => receiver.received.some((r) => JSON.parse(r.body).type === "webhook.test"), 20_000);
      // The receiver can check the signature with the secret the page showed.
      const test = receiver.received.find((r) => JSON.parse(r.body).type === "webhook.test")!;
      new Webhook(secret).verify(test.body, test.headers);
      await row.getByRole("button", { name: "Deliveries" }).click();
      const deliveries = row.getByRole("region", { name: "Deliveries" });
      await eventually(async () => {
        await deliveries.getByRole("button", { name: "Refresh" }).click();
        return (await deliveries.locator("tbody tr", { hasText: "webhook.test" }).innerText().catch(() => "")).includes("succeeded");
      }, 20_000);
      await row.getByRole("button", { name: "Pause" }).click();
      await row.getByRole("button", { name: "Resume" }).waitFor();
      expect((await (await trove.api("/api/webhooks")).json()).webhooks[0].status).toBe("paused");
      await row.getByRole("button", { name: "Resume" }).click();
      await row.getByRole("button", { name: "Pause" }).waitFor();
      await page.reload();
      expect(await page.content()).not.toContain(secret);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
      receiver.stop();
    }
  }, slow);

  inChromium("add an RSS source from a local feed: its entries reach the library; pause it", async () => {
    const now = Math.floor(Date.now() / 1000);
    const entry = (n: number) =>
      `<item><title>Feed entry ${n}</title><link>${pages.url}/article?entry=${n}</link><guid>entry-${n}</guid><pubDate>${new Date((now - n * 60) * 1000).toUTCString()}</pubDate><description>&lt;p&gt;Entry ${n} of the local feed, with enough words to be kept as the item's text.&lt;/p&gt;</description></item>`;
    const feed = `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Local feed</title><link>${pages.url}/</link>${entry(1)}${entry(2)}</channel></rss>`;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(feed, { headers: { "content-type": "application/rss+xml" } }) });
    const { page, errors } = await app.open("/settings/sources");
    try {
      await app.signIn(page);
      const form = page.getByRole("form", { name: "New feed" });
      await form.getByLabel("Feed or site").fill(`http://127.0.0.1:${server.port}/feed.xml`);
      await form.getByRole("button", { name: "Add" }).click();
      await page.getByRole("status").getByText("Added Local feed.").waitFor();
      const row = page.getByRole("listitem", { name: "Source Local feed" });
      await eventually(async () => {
        const items = (await (await trove.api("/api/items?limit=1000")).json()).items as { url: string }[];
        return items.some((i) => i.url === `${pages.url}/article?entry=1`) && items.some((i) => i.url === `${pages.url}/article?entry=2`);
      }, 30_000);
      await row.getByRole("button", { name: "Pause" }).click();
      await row.getByRole("button", { name: "Resume" }).waitFor();
      await row.getByRole("button", { name: "Events" }).click();
      await row.getByRole("list", { name: "Events" }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
      server.stop(true);
    }
  }, slow);

  inChromium("run an export and download it", async () => {
    await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?export` } });
    const { page, errors } = await app.open("/settings/exports");
    try {
      await app.signIn(page);
      const form = page.getByRole("form", { name: "New export" });
      await form.getByLabel("Format").selectOption("json");
      await form.getByRole("button", { name: "Export" }).click();
      const link = page.getByRole("link", { name: "Download" }).first();
      await link.waitFor({ timeout: 30_000 });
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      const path = await download.path();
      const body = JSON.parse(await Bun.file(path!).text());
      expect(JSON.stringify(body)).toContain("Parsing Things Well");
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("the account screen: plan and usage, this session among the others; ending another signs it out", async () => {
    const other = await trove.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password: app.password }, headers: { "user-agent": "Other browser" } });
    const otherCookie = (other.headers.get("set-cookie") ?? "").split(";")[0]!;
    const { page, errors } = await app.open("/settings/account");
    try {
      await app.signIn(page);
      await page.getByRole("region", { name: "Plan and usage" }).getByText("personal").waitFor();
      const sessions = page.getByRole("region", { name: "Sessions" });
      await sessions.getByText("this session").waitFor();
      const row = sessions.getByRole("listitem").filter({ hasText: "Other browser" });
      await row.getByRole("button", { name: "End session" }).click();
      await row.waitFor({ state: "detached" });
      expect((await trove.api("/api/items", { key: null, headers: { cookie: otherCookie } })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("the account screen changes the password only with the current one; other sessions end", async () => {
    const other = await trove.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password: app.password } });
    const otherCookie = (other.headers.get("set-cookie") ?? "").split(";")[0]!;
    const newPassword = "alice's changed passphrase";
    const { page, errors } = await app.open("/settings/account");
    try {
      await app.signIn(page);
      const form = page.getByRole("form", { name: "Change password" });
      await form.getByLabel("Current password").fill("not the password");
      await form.getByLabel("New password").fill(newPassword);
      await form.getByRole("button", { name: "Change" }).click();
      await page.getByRole("status").getByText("The current password is not right.").waitFor();
      expect((await trove.api("/api/items", { key: null, headers: { cookie: otherCookie } })).status).toBe(200);
      await form.getByLabel("Current password").fill(app.password);
      await form.getByLabel("New password").fill(newPassword);
      await form.getByRole("button", { name: "Change" }).click();
      await page.getByRole("status").getByText("Password changed").waitFor();
      expect((await trove.api("/api/items", { key: null, headers: { cookie: otherCookie } })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
      // The other tests sign in with the first password.
      await trove.api("/api/account/password", { method: "POST", json: { password: app.password, currentPassword: newPassword } });
    }
  }, slow);

  inChromium("a note's history: the diff between two revisions, and restoring an older one as the next revision", async () => {
    const created = await (await trove.api("/api/notes", { method: "POST", json: { title: "Evolving", bodyMarkdown: "first line\nsecond line" } })).json();
    await trove.api(`/api/notes/${created.note.id}`, { method: "PATCH", json: { expectedRevision: 1, bodyMarkdown: "first line\nchanged line" } });
    const { page, errors } = await app.open(`/notes/${created.note.id}/history`);
    try {
      await app.signIn(page);
      const changes = page.getByLabel("Changes");
      await changes.locator(".removed", { hasText: "second line" }).waitFor();
      await changes.locator(".added", { hasText: "changed line" }).waitFor();
      await page.getByLabel("To revision").selectOption("1");
      await page.getByRole("button", { name: "Restore revision 1" }).click();
      await page.waitForURL(new RegExp(`/notes/${created.note.id}$`));
      await page.getByText("revision 3").waitFor();
      expect((await (await trove.api(`/api/notes/${created.note.id}`)).json()).note).toMatchObject({ currentRevision: 3, bodyMarkdown: "first line\nsecond line" });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("projects and a repository's context brief; the reader's own note and its connected notes", async () => {
    await trove.api("/api/projects", { method: "POST", json: { name: "Parser project", repositories: ["github.com/example/parser"] } });
    const note = await (await trove.api("/api/notes", { method: "POST", json: { title: "Parser decisions", bodyMarkdown: "We descend recursively.", repository: "github.com/example/parser" } })).json();
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?projects` } })).json();
    await trove.api(`/api/notes/${note.note.id}/item-links`, { method: "POST", json: { itemId: saved.id } });
    const { page, errors } = await app.open("/projects");
    try {
      await app.signIn(page);
      await page.getByRole("link", { name: "github.com/example/parser" }).click();
      const brief = page.getByRole("region", { name: "Context brief" });
      await brief.getByRole("link", { name: "Parser decisions" }).waitFor();
      await page.goto(`${trove.url}/items/${saved.id}`);
      await page.getByRole("navigation", { name: "Connected notes" }).getByRole("link", { name: "Parser decisions" }).waitFor();
      await page.getByLabel("Your note").fill("Compare with the Pratt parser.");
      await page.getByLabel("Your note").blur();
      await eventually(async () => (await (await trove.api(`/api/items/${saved.id}`)).json()).notes === "Compare with the Pratt parser.");
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("select items in the library to tag, archive or delete them together", async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?bulk=${n}` } })).json()).id);
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      const pick = (id: string) => page.locator(`li:has(a[href="/items/${id}"]) input.pick`);
      await pick(ids[0]!).check();
      await pick(ids[1]!).check();
      const bar = page.getByRole("toolbar", { name: "Selected items" });
      await bar.getByText("2 selected").waitFor();
      await bar.getByLabel("Tag to add").fill("batch");
      await bar.getByRole("button", { name: "Add tag" }).click();
      await eventually(async () => {
        const tags = await Promise.all(ids.map(async (id) => (await (await trove.api(`/api/items/${id}`)).json()).tags as string[]));
        return tags[0]!.includes("batch") && tags[1]!.includes("batch") && !tags[2]!.includes("batch");
      });
      // The list is read again after an action, and the selection cleared: pick again once that is done.
      await bar.waitFor({ state: "detached" });
      await pick(ids[0]!).check();
      await pick(ids[1]!).check();
      await page.getByRole("toolbar", { name: "Selected items" }).getByRole("button", { name: "Archive" }).click();
      await page.locator(`a[href="/items/${ids[0]}"]`).waitFor({ state: "detached" });
      expect((await (await trove.api(`/api/items/${ids[1]}`)).json()).status).toBe("archived");
      page.once("dialog", (d) => void d.accept());
      await pick(ids[2]!).check();
      await page.getByRole("toolbar", { name: "Selected items" }).getByRole("button", { name: "Delete" }).click();
      await page.locator(`a[href="/items/${ids[2]}"]`).waitFor({ state: "detached" });
      expect((await trove.api(`/api/items/${ids[2]}`)).status).toBe(404);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("past 100 items the library pages on with More", async () => {
    const html = (n: number) => `<html><head><title>Paged ${n}</title></head><body><article><h1>Paged ${n}</h1><p>Paged item number ${n}, with a sentence of text to keep.</p></article></body></html>`;
    const have = (await (await trove.api("/api/items?limit=1")).json()).count as number;
    for (let n = 0; have + n < 105; n++) await trove.api("/api/ingest", { method: "POST", json: { url: `https://paged.example.test/${n}`, html: html(n) } });
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      await page.locator("ul.items li").nth(99).waitFor();
      expect(await page.locator("ul.items li").count()).toBe(100);
      const total = (await (await trove.api("/api/items?limit=1")).json()).count as number;
      await page.getByRole("button", { name: `More (${total - 100} left)` }).click();
      await page.locator("ul.items li").nth(total - 1).waitFor();
      expect(await page.locator("ul.items li").count()).toBe(total);
      expect(await page.getByRole("button", { name: /^More/ }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("filter the library by tags, collection and date; the filters live in the address", async () => {
    const html = (t: string) => `<html><head><title>${t}</title></head><body><article><h1>${t}</h1><p>${t} has a paragraph of its own to keep.</p></article></body></html>`;
    const red = (await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://filters.example.test/red", html: html("Red filter item") } })).json()).id;
    const blue = (await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://filters.example.test/blue", html: html("Blue filter item") } })).json()).id;
    const shelf = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Shelf" } })).json()).collection.id;
    await trove.api(`/api/items/${red}`, { method: "POST", json: { tags: ["red-tag"] } });
    await trove.api(`/api/items/${blue}`, { method: "POST", json: { tags: ["blue-tag"], collectionIds: [shelf] } });
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      await page.getByText("More filters").click();
      await page.getByLabel("Tags").fill("red-tag");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/tags=red-tag/);
      // The unfiltered list goes, the filtered one stays.
      await page.locator(`a[href="/items/${blue}"]`).waitFor({ state: "detached" });
      await page.locator(`a[href="/items/${red}"]`).waitFor();
      await page.getByLabel("Tags").fill("");
      await page.getByLabel("Collection").selectOption(shelf);
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(new RegExp(`collection=${shelf}`));
      await page.locator(`a[href="/items/${red}"]`).waitFor({ state: "detached" });
      await page.locator(`a[href="/items/${blue}"]`).waitFor();
      expect(await page.locator("ul.items li").count()).toBe(1);
      // Back undoes the last filter.
      await page.goBack();
      await page.locator(`a[href="/items/${red}"]`).waitFor();
      await page.goto(`${trove.url}/?since=2999-01-01`);
      await page.getByText("Nothing matches.").waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("tag and archive from the reader, filter archived items, and search", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article-copy` } })).json();
    const { page, errors } = await app.open(`/items/${saved.id}`);
    try {
      await app.signIn(page);
      await page.getByRole("heading", { name: "Parsing Things Well" }).waitFor();
      await page.getByLabel("Tags").fill("parsing, reading");
      await page.getByLabel("Tags").press("Enter");
      await page.getByLabel("Tags").blur();
      await eventually(async () => JSON.stringify((await (await trove.api(`/api/items/${saved.id}`)).json()).tags) === '["parsing","reading"]');
      await page.getByRole("button", { name: "Archive" }).click();
      await page.getByLabel("Page URL").waitFor();
      expect((await (await trove.api(`/api/items/${saved.id}`)).json()).status).toBe("archived");
      await page.getByLabel("Show").selectOption("archived");
      await page.waitForURL(/status=archived/);
      await page.locator(`a[href="/items/${saved.id}"]`).waitFor();
      await page.getByLabel("Search").fill("recursive descent");
      await page.getByLabel("Search").press("Enter");
      await page.waitForURL(/q=recursive/);
      await page.locator(`a[href="/items/${saved.id}"]`).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("images come through Trove, straight from their site, or not at all, as the account screen sets", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?images-modes` } })).json();
    await eventually(async () => (await (await trove.api(`/api/items/${saved.id}/media`)).json()).count > 0, 30_000);
    const { page, requests, errors } = await app.open(`/items/${saved.id}`);
    const pageOrigin = new URL(pages.url).host;
    const fromPages = () => requests.filter((u) => new URL(u).host === pageOrigin);
    try {
      const proxied = page.waitForResponse((r) => /\/api\/items\/[\w-]+\/media\/[\w-]+$/.test(r.url()) && r.status() === 200);
      await app.signIn(page);
      const diagram = page.locator('article.content img[alt="Parse tree diagram"]');
      await diagram.scrollIntoViewIfNeeded();
      expect(await diagram.getAttribute("src")).toMatch(new RegExp(`^/api/items/${saved.id}/media/`));
      expect((await proxied).headers()["content-type"]).toBe("image/png");
      expect(fromPages()).toEqual([]);

      await page.goto(`${trove.url}/settings/account`);
      await page.getByLabel("Not at all (the description is shown)").check();
      await page.goto(`${trove.url}/items/${saved.id}`);
      // The image stays with its description and no address: nothing is asked for.
      await page.locator('article.content img.image-off[alt="Parse tree diagram"]').waitFor({ state: "attached" });
      expect(await page.locator("article.content img[src]").count()).toBe(0);

      await page.goto(`${trove.url}/settings/account`);
      await page.getByLabel("From their site, as you scroll to them").check();
      await page.goto(`${trove.url}/items/${saved.id}`);
      await page.locator('article.content img[alt="Parse tree diagram"]').waitFor({ state: "attached" });
      expect(await page.locator('article.content img[alt="Parse tree diagram"]').getAttribute("src")).toContain(`${pageOrigin}/images/diagram.png`);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("an item's collections are edited in the reader: a new one, another ticked, one taken away", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?collections` } })).json();
    const later = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Read later, maybe" } })).json()).collection;
    const membership = async () => (await (await trove.api(`/api/items/${saved.id}`)).json()).collectionIds as string[];
    const { page, errors } = await app.open(`/items/${saved.id}`);
    try {
      await app.signIn(page);
      await page.getByText("Collections: none").click();
      await page.getByLabel("New collection").fill("To cite");
      await page.getByRole("form", { name: "Add a collection" }).getByRole("button", { name: "Add" }).click();
      await page.getByText("Collections: To cite", { exact: true }).waitFor();
      // The page shows a change at once; the server has it once its answer is in.
      await eventually(async () => (await membership()).length === 1);
      const [cite] = await membership();
      expect((await (await trove.api(`/api/items?collection=${cite}`)).json()).items.map((i: { id: string }) => i.id)).toEqual([saved.id]);

      await page.getByLabel("Read later, maybe").check();
      await page.getByText("Collections: Read later, maybe, To cite").or(page.getByText("Collections: To cite, Read later, maybe")).waitFor();
      await page.getByLabel("To cite").uncheck();
      await page.getByText("Collections: Read later, maybe", { exact: true }).waitFor();
      await eventually(async () => JSON.stringify(await membership()) === JSON.stringify([later.id]));
      // After a reload the reader shows what was stored.
      await page.reload();
      await page.getByText("Collections: Read later, maybe", { exact: true }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("a client key and a webhook scoped to a collection or to tags, with chosen events", async () => {
    const inside = (await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?scoped-in` } })).json()).id;
    const outside = (await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?scoped-out` } })).json()).id;
    await trove.api(`/api/items/${inside}`, { method: "POST", json: { collectionId: "Shared with my agent", tags: ["Café Notes"] } });
    const { page, errors } = await app.open("/settings/clients");
    try {
      await app.signIn(page);
      const form = page.getByRole("form", { name: "New connected client" });
      await form.getByLabel("Name").fill("Agent with one collection");
      await form.getByLabel("Items").selectOption("collection");
      // A label's text includes its select's options ("CollectionShared with my agent") once the collections are
      // in, so the label is matched by its start.
      await form.getByLabel(/^Collection/).selectOption({ label: "Shared with my agent" });
      await form.getByRole("button", { name: "Create" }).click();
      const key = (await page.getByRole("status", { name: "New key" }).locator("code").innerText()).trim();
      await page.getByText("in Shared with my agent").waitFor();
      const seen = (await (await trove.api("/api/items?limit=1000", { key })).json()).items.map((i: { id: string }) => i.id);
      expect(seen).toEqual([inside]);
      expect(seen).not.toContain(outside);

      await page.goto(`${trove.url}/settings/webhooks`);
      const hook = page.getByRole("form", { name: "New webhook" });
      await hook.getByLabel("Name").fill("Tagged only");
      await hook.getByLabel("URL").fill("https://hooks.example.test/trove");
      await hook.getByLabel("Items").selectOption("tags");
      await hook.getByLabel("Tags", { exact: true }).fill("café notes");
      await hook.getByLabel("item.created").check();
      await hook.getByLabel("item.tagged").check();
      await hook.getByRole("button", { name: "Create" }).click();
      await page.getByRole("status", { name: "New secret" }).waitFor();
      await page.getByText("tagged cafe-notes").waitFor();
      const [created] = (await (await trove.api("/api/webhooks")).json()).webhooks.filter((w: { name: string }) => w.name === "Tagged only");
      expect(created).toMatchObject({ eventTypes: ["item.created", "item.tagged"], resourceScope: { tagSlugs: ["cafe-notes"] } });
      // The form is back to every item after a create.
      expect(await hook.getByLabel("Tags", { exact: true }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});
