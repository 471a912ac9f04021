// The web app's imports screen in a real browser (Debian's Chromium, driven by playwright-core): pick an export
// file, import it, watch the job to its counts, read the failed entries, and find the items in the library. The
// bookmarked pages are served locally; URLs that must never be fetched use `.invalid` hosts. Where
// /usr/bin/chromium is missing the suite is a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { aliceKey, chromiumInstalled as installed, chromiumSuite, eventually, startWebApp, type PageServer, type TestTrove, type WebApp } from "@trove/testing";

// A loaded machine runs these slowly: each test waits for jobs and page fetches in the background.
const slow = 90_000;
// Small, so that an upload over it costs nothing; every file below is far smaller.
const maxBodyBytes = 256 * 1024;

let app: WebApp;
let trove: TestTrove;
let pages: PageServer;
let dir: string;

/** Writes a file to the temp dir, picks it in the form and presses Import; `format` is the select's label. */
async function importFile(page: Page, name: string, content: string | Uint8Array, format?: string): Promise<void> {
  const path = join(dir, name);
  writeFileSync(path, content);
  const form = page.getByRole("form", { name: "New import" });
  await form.getByLabel("Export file").setInputFiles(path);
  if (format) await form.getByLabel("Format").selectOption({ label: format });
  await form.getByRole("button", { name: "Import" }).click();
}

const jobs = (page: Page, fileName: string) => page.getByRole("list", { name: "Recent imports" }).getByRole("listitem", { name: `Import of ${fileName}` });

/** Waits until the job shows each text (exactly, as one part of its summary). */
async function shows(job: Locator, ...texts: string[]): Promise<void> {
  for (const text of texts) await job.getByText(text, { exact: true }).waitFor({ timeout: 30_000 });
}

const apiItems = async () => (await (await trove.api("/api/items?status=stashed,flagged,archived&limit=100", { key: aliceKey })).json()).items as any[];

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the imports screen in Chromium"), () => {
  beforeAll(async () => {
    if (!installed) return;
    dir = mkdtempSync(join(tmpdir(), "trove-web-imports-"));
    app = await startWebApp({
      env: {
        // Jobs are picked up and pages fetched at once rather than at production's polite pace.
        TROVE_JOBS_TICK_MS: "100",
        TROVE_IMPORT_HOST_GAP_MS: "10",
        TROVE_MAX_BODY_BYTES: String(maxBodyBytes),
      },
    });
    ({ trove, pages } = app);
    // The web app is built on its first request: done here, not inside the first test's time.
    expect((await fetch(`${trove.url}/settings/imports`)).status).toBe(200);
  }, slow);
  afterAll(async () => {
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  inChromium("import Netscape bookmarks: the job completes, its pages are fetched, the items are in the library; again: already present", async () => {
    const base = pages.url;
    const bookmarks = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
  <DT><H3>Reading</H3>
  <DL><p>
    <DT><A HREF="${base}/article?from=bookmarks" ADD_DATE="1500000000" TAGS="parsing">Bookmarked Parsing Article</A>
    <DT><A HREF="${base}/notes.txt" ADD_DATE="1500000100">Bookmarked Notes File</A>
  </DL><p>
  <DT><A HREF="${base}/article-copy" ADD_DATE="1500000200">Bookmarked Article Copy</A>
</DL><p>
`;
    const { page, errors, requests } = await app.open("/settings/imports");
    try {
      await app.signIn(page);
      await page.getByRole("heading", { name: "Imports", exact: true }).waitFor();
      await importFile(page, "bookmarks.html", bookmarks);
      const job = jobs(page, "bookmarks.html");
      await shows(job, "completed", "Netscape bookmarks HTML", "3 of 3 entries", "3 created", "0 already present", "0 failed");
      // The list keeps polling while the pages are fetched in the background.
      await shows(job, "pages: 0 pending, 3 fetched, 0 failed");
      // The form is ready for the next file.
      expect(await page.getByLabel("Export file").inputValue()).toBe("");

      // The library lists them, by the titles the bookmarks gave.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Trove", exact: true }).click();
      for (const title of ["Bookmarked Parsing Article", "Bookmarked Notes File", "Bookmarked Article Copy"]) {
        await page.getByRole("link", { name: title }).waitFor();
      }

      // The API says the same: saved once each, with the bookmark's date, tags and folder.
      const items = await apiItems();
      const article = items.find((i) => i.url === `${base}/article?from=bookmarks`);
      expect(article).toMatchObject({ title: "Bookmarked Parsing Article", createdAt: 1500000000, tags: ["parsing"], contentAvailable: true });
      expect(article.collectionName).toBe("Reading");
      expect(items.filter((i) => i.url.startsWith(base))).toHaveLength(3);

      // The same file again: nothing new, each entry already present.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Imports" }).click();
      await shows(jobs(page, "bookmarks.html"), "3 created");
      await importFile(page, "bookmarks.html", bookmarks);
      await eventually(async () => (await jobs(page, "bookmarks.html").count()) === 2, 30_000);
      // Newest first.
      await shows(jobs(page, "bookmarks.html").first(), "completed", "3 of 3 entries", "0 created", "3 already present", "0 failed");
      expect((await apiItems()).filter((i) => i.url.startsWith(base))).toHaveLength(3);

      expect(app.offOrigin(requests)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("a Pocket CSV with a bad URL: one failed, its reason under Details; the Details toggle works from the keyboard", async () => {
    const csv = [
      "title,url,time_added,tags,status",
      `Pocket Good One,${pages.url}/article?from=pocket,1600000000,reading,unread`,
      "Pocket Bad One,ftp://files.invalid/pocket.zip,1600000100,,unread",
      `Pocket Good Two,${pages.url}/article?from=pocket-two,1600000200,,archive`,
    ].join("\r\n");
    const { page, errors } = await app.open("/settings/imports");
    try {
      await app.signIn(page);
      await importFile(page, "pocket.csv", csv, "Pocket CSV");
      const job = jobs(page, "pocket.csv");
      await shows(job, "completed", "Pocket CSV", "2 created", "1 failed");

      const details = job.getByRole("button", { name: "Details" });
      expect(await details.getAttribute("aria-expanded")).toBe("false");
      await details.focus();
      await page.keyboard.press("Enter");
      expect(await details.getAttribute("aria-expanded")).toBe("true");
      const failures = job.getByRole("region", { name: "Failed entries of pocket.csv" });
      const row = failures.getByRole("row").filter({ hasText: "ftp://files.invalid/pocket.zip" });
      await row.getByText("not a web address (ftp: URL)").waitFor();
      // Row 2 of the file's entries (the API's index 1), counted from 1.
      expect(await row.getByRole("cell").first().innerText()).toBe("2");
      expect(await failures.getByRole("button", { name: "More" }).count()).toBe(0);
      await page.keyboard.press("Space");
      await failures.waitFor({ state: "detached" });

      expect((await apiItems()).find((i) => i.url === `${pages.url}/article?from=pocket-two`)).toMatchObject({ title: "Pocket Good Two", status: "archived" });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("more failed entries than one page: More shows the rest", async () => {
    const bad = Array.from({ length: 105 }, (_, i) => `Bad ${i},ftp://files.invalid/${i},1600000000,,unread`);
    const csv = ["title,url,time_added,tags,status", ...bad].join("\r\n");
    const { page, errors } = await app.open("/settings/imports");
    try {
      await app.signIn(page);
      await importFile(page, "all-bad.csv", csv);
      const job = jobs(page, "all-bad.csv");
      await shows(job, "completed", "0 created", "105 failed");
      await job.getByRole("button", { name: "Details" }).click();
      const failures = job.getByRole("region", { name: "Failed entries of all-bad.csv" });
      await failures.getByText("100 of 105 failed entries shown").waitFor();
      expect(await failures.getByRole("row").count()).toBe(101);
      await failures.getByRole("button", { name: "More" }).click();
      await failures.getByText("105 failed entries", { exact: true }).waitFor();
      await failures.getByRole("cell", { name: "ftp://files.invalid/104" }).waitFor();
      expect(await failures.getByRole("row").count()).toBe(106);
      expect(await failures.getByRole("button", { name: "More" }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("files that cannot be imported: no known format, the wrong format named, too large", async () => {
    const { page, errors } = await app.open("/settings/imports");
    try {
      await app.signIn(page);
      const alert = page.getByRole("alert");

      // Nothing in it says what it is: refused at once, and no job is made.
      await importFile(page, "shopping.txt", "eggs\nflour\nsome milk, maybe\n");
      await alert.getByText("format could not be recognised. If it is one of the formats listed, choose it under Format").waitFor();
      expect(await jobs(page, "shopping.txt").count()).toBe(0);

      // A CSV said to be an Omnivore ZIP: the job fails and says why.
      await importFile(page, "not-a-zip.csv", "title,url\r\nX,https://wrong.invalid/\r\n", "Omnivore ZIP");
      await alert.waitFor({ state: "detached" });
      const failed = jobs(page, "not-a-zip.csv");
      await shows(failed, "failed");
      expect((await failed.locator(".job-error").innerText()).length).toBeGreaterThan(0);

      // Over the server's body limit: 413, said in words.
      await importFile(page, "huge.html", `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n${"x".repeat(maxBodyBytes + 1024)}`);
      await alert.getByText("The file is too large: at most 256 KB may be uploaded.").waitFor();
      expect(await jobs(page, "huge.html").count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});
