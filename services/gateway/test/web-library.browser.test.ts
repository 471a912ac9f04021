// The library's save box and search in a real browser (Debian's Chromium through playwright-core): a page still
// being read when the save answers is watched until its text is in; a page that cannot be read says why; search by
// exact words, by words and meaning (served by words when meaning search is off, and said so), or by meaning alone
// (refused with the API's reason); j/k through the notes list as through the library. Where /usr/bin/chromium is
// missing the suite is a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumInstalled as installed, chromiumSuite, eventually, heldTitle, startWebApp, type PageServer, type TestTrove, type WebApp } from "@trove/testing";

const slow = 60_000;

let app: WebApp;
let trove: TestTrove;
let pages: PageServer;

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the library's save box and search in Chromium"), () => {
  beforeAll(async () => {
    if (!installed) return;
    // A save answers after 50 ms, so a page held by the test is read in the background; no embedding model.
    app = await startWebApp({ env: { TROVE_INGEST_WAIT_MS: "50", TROVE_SEMANTIC: "off" } });
    ({ trove, pages } = app);
  }, slow);
  afterAll(async () => {
    await app?.stop();
  });

  inChromium("a page still being read is watched until its text is in; one that cannot be read says why", async () => {
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      await page.getByLabel("Page URL").fill(`${pages.url}/held`);
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").getByText("the page is still being read").waitFor();
      await pages.reached("/held");
      pages.release();
      await page.getByRole("status").getByText(`Read: ${heldTitle}.`).waitFor({ timeout: 30_000 });
      await page.getByRole("status").getByRole("link", { name: "Open it" }).waitFor();
      // The list was read again once the text was in.
      await page.locator("ul.items").getByRole("link", { name: heldTitle }).waitFor();

      await page.getByLabel("Page URL").fill(`${pages.url}/missing`);
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").getByText(/could not be read: .*404/).waitFor({ timeout: 30_000 });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("search by exact words, by words and meaning (served by words here, and said so), and by meaning (refused)", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?modes` } })).json();
    await eventually(async () => (await (await trove.api(`/api/items/${saved.id}`)).json()).contentAvailable === true, 30_000);
    const { page, errors } = await app.open("/");
    try {
      await app.signIn(page);
      await page.getByLabel("Search").fill("recursive descent");
      await page.getByLabel("Search").press("Enter");
      await page.waitForURL(/q=recursive/);
      await page.locator(`a[href="/items/${saved.id}"]`).waitFor();
      await page.getByText("matched by words only").waitFor();

      await page.getByLabel("Match").selectOption({ label: "Exact words" });
      await page.waitForURL(/mode=lexical/);
      await page.getByText("matched by words only").waitFor({ state: "detached" });
      await page.locator(`a[href="/items/${saved.id}"]`).waitFor();

      await page.getByLabel("Match").selectOption({ label: "Meaning" });
      await page.waitForURL(/mode=semantic/);
      await page.getByRole("alert").waitFor();
      expect(await page.locator(`a[href="/items/${saved.id}"]`).count()).toBe(0);
      const refused = await trove.api("/api/items/search?q=recursive&mode=semantic");
      expect((await refused.json()).error).toBe("semantic_unavailable");

      // The mode is part of the address: back returns to exact words and its results.
      await page.goBack();
      await page.waitForURL(/mode=lexical/);
      await page.locator(`a[href="/items/${saved.id}"]`).waitFor();
      expect(await page.getByRole("alert").count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("j and k move through the notes list too; Enter opens the note", async () => {
    for (const title of ["First keyboard note", "Second keyboard note"]) await trove.api("/api/notes", { method: "POST", json: { title, bodyMarkdown: title } });
    const { page, errors } = await app.open("/notes");
    try {
      await app.signIn(page);
      await page.getByRole("link", { name: "First keyboard note" }).waitFor();
      await page.locator("body").press("j");
      const first = await page.evaluate(() => (globalThis as any).document.activeElement?.textContent);
      await page.locator("body").press("j");
      const second = await page.evaluate(() => (globalThis as any).document.activeElement?.textContent);
      expect(new Set([first, second])).toEqual(new Set(["First keyboard note", "Second keyboard note"]));
      await page.locator("body").press("k");
      expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe(first);
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/notes\/[\w-]+$/);
      await page.getByLabel("Title").waitFor();
      expect(await page.getByLabel("Title").inputValue()).toBe(first);
      // ? lists the keys here as well.
      await page.locator("body").press("Escape");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Notes" }).click();
      await page.getByRole("link", { name: "First keyboard note" }).waitFor();
      await page.locator("body").press("?");
      await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});
