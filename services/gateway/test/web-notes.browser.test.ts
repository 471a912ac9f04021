// The web app's notes screens in a real browser (Debian's Chromium, driven by playwright-core) against a test Trove:
// the note list filtered by tag, kind, project, archived and words, with the filters in the address; tags, kind and
// state edited beside the title; archive and restore (a stale revision reloads); items found by search attached with
// a relation and an annotation, followed to the reader and removed. Where /usr/bin/chromium is missing the suite is
// a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import {
  chromiumInstalled as installed,
  chromiumSuite,
  eventually,
  startWebApp,
  type PageServer,
  type TestTrove,
  type WebApp,
} from "@trove/testing";

const slow = 60_000;

let app: WebApp;
let trove: TestTrove;
let pages: PageServer;

interface CreateNote {
  title: string;
  bodyMarkdown?: string;
  tags?: string[];
  kind?: string;
  state?: string;
  project?: string;
}

async function createNote(fields: CreateNote): Promise<string> {
  const res = await trove.api("/api/notes", { method: "POST", json: { bodyMarkdown: "", ...fields } });
  expect(res.status).toBe(200);
  return (await res.json()).note.id;
}

const readNote = async (id: string) => (await (await trove.api(`/api/notes/${id}`)).json()).note;

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the notes screens in Chromium"), () => {
  beforeAll(async () => {
    if (!installed) return;
    // The app talks to its own origin only: any other request is counted in `errors`.
    app = await startWebApp({ offOriginErrors: true });
    ({ trove, pages } = app);
  }, slow);
  afterAll(() => app?.stop());

  inChromium("filter the note list by tag, archived, project, kind and words; the filters live in the address", async () => {
    const project = (await (await trove.api("/api/projects", { method: "POST", json: { name: "Filtered project" } })).json()).project.id as string;
    const alpha = await createNote({ title: "Alpha plan", bodyMarkdown: "The alpha plan.", tags: ["crimson"], kind: "plan" });
    const beta = await createNote({ title: "Beta log", bodyMarkdown: "Mentions zeppelins once.", tags: ["azure"], state: "done", project });
    const gamma = await createNote({ title: "Gamma archived", tags: ["crimson"] });
    expect((await trove.api(`/api/notes/${gamma}/archive`, { method: "POST", json: { expectedRevision: 1 } })).status).toBe(200);
    const link = (page: Page, id: string) => page.locator(`ul.items a[href="/notes/${id}"]`);

    const { page, errors } = await app.open("/notes");
    try {
      await app.signIn(page);
      await link(page, alpha).waitFor();
      await link(page, beta).waitFor();
      // An archived note is not among the current ones.
      expect(await link(page, gamma).count()).toBe(0);

      await page.getByLabel("Tags").fill("crimson");
      await page.getByLabel("Tags").press("Enter");
      await page.waitForURL(/\/notes\?tags=crimson$/);
      await link(page, beta).waitFor({ state: "detached" });
      await link(page, alpha).waitFor();
      expect(await link(page, gamma).count()).toBe(0);

      // Archived notes with the same tag: the tag stays, the list changes.
      await page.getByLabel("Show").selectOption("true");
      await page.waitForURL(/tags=crimson&archived=true$/);
      await link(page, alpha).waitFor({ state: "detached" });
      await link(page, gamma).waitFor();
      expect(await page.locator("ul.items li").count()).toBe(1);

      // A reload keeps the filters, and the form shows them.
      await page.reload();
      await link(page, gamma).waitFor();
      expect(await link(page, alpha).count()).toBe(0);
      expect(await page.getByLabel("Tags").inputValue()).toBe("crimson");
      expect(await page.getByLabel("Show").inputValue()).toBe("true");

      // Back undoes one filter at a time.
      await page.goBack();
      await page.waitForURL(/\/notes\?tags=crimson$/);
      await link(page, gamma).waitFor({ state: "detached" });
      await link(page, alpha).waitFor();
      expect(await page.getByLabel("Show").inputValue()).toBe("");
      await page.goBack();
      await page.waitForURL(/\/notes$/);
      await link(page, beta).waitFor();
      expect(await page.getByLabel("Tags").inputValue()).toBe("");

      // Everything, current and archived.
      await page.getByLabel("Show").selectOption("any");
      await link(page, gamma).waitFor();
      await link(page, alpha).waitFor();
      await page.getByLabel("Show").selectOption("");
      await link(page, gamma).waitFor({ state: "detached" });

      await page.getByLabel("Project").selectOption(project);
      await page.waitForURL(new RegExp(`project=${project}$`));
      await link(page, alpha).waitFor({ state: "detached" });
      await link(page, beta).waitFor();
      expect(await page.locator("ul.items li").count()).toBe(1);

      await page.goto(`${trove.url}/notes?kind=plan`);
      await link(page, alpha).waitFor();
      expect(await link(page, beta).count()).toBe(0);
      expect(await page.getByLabel("Kind").inputValue()).toBe("plan");

      await page.goto(`${trove.url}/notes?state=done`);
      await link(page, beta).waitFor();
      expect(await link(page, alpha).count()).toBe(0);

      // Words search the notes; a filter with no match says so.
      await page.goto(`${trove.url}/notes`);
      await page.getByLabel("Search").fill("zeppelins");
      await page.getByLabel("Search").press("Enter");
      await page.waitForURL(/q=zeppelins/);
      await link(page, alpha).waitFor({ state: "detached" });
      await link(page, beta).waitFor();
      await page.goto(`${trove.url}/notes?tags=no-such-tag`);
      await page.getByText("No notes match.").waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("set tags, kind and state in the editor; archive the note, find it under Archived and restore it", async () => {
    const id = await createNote({ title: "Metadata note", bodyMarkdown: "Some words." });
    const other = await createNote({ title: "A current note" });
    const { page, errors } = await app.open(`/notes/${id}`);
    try {
      await app.signIn(page);
      await page.getByLabel("Tags").fill("Research, reading list");
      await page.getByLabel("Kind").fill("decision");
      await page.getByLabel("State").fill("active");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").getByText("Saved as revision 2").waitFor();
      expect(await readNote(id)).toMatchObject({ currentRevision: 2, tags: ["research", "reading-list"], kind: "decision", state: "active", bodyMarkdown: "Some words." });
      // The editor shows what was stored.
      expect(await page.getByLabel("Tags").inputValue()).toBe("research, reading-list");
      // Clearing a field clears it in the note; the tags stay.
      await page.getByLabel("State").fill("");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").getByText("Saved as revision 3").waitFor();
      expect(await readNote(id)).toMatchObject({ currentRevision: 3, tags: ["research", "reading-list"], kind: "decision", state: null });

      await page.getByRole("button", { name: "Archive" }).click();
      await page.getByText("Archived", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Restore" }).waitFor();
      expect(await readNote(id)).toMatchObject({ archived: true, currentRevision: 4 });

      // The default list leaves it out; Archived shows it.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Notes" }).click();
      await page.locator(`ul.items a[href="/notes/${other}"]`).waitFor();
      expect(await page.locator(`ul.items a[href="/notes/${id}"]`).count()).toBe(0);
      await page.getByLabel("Show").selectOption("true");
      await page.locator(`ul.items a[href="/notes/${other}"]`).waitFor({ state: "detached" });
      await page.getByRole("link", { name: "Metadata note" }).click();
      await page.getByRole("button", { name: "Restore" }).click();
      await page.getByRole("button", { name: "Archive" }).waitFor();
      expect(await page.getByText("Archived", { exact: true }).count()).toBe(0);
      expect(await readNote(id)).toMatchObject({ archived: false, currentRevision: 5 });
      await page.goBack();
      await page.goBack();
      await page.waitForURL(/\/notes$/);
      await page.locator(`ul.items a[href="/notes/${id}"]`).waitFor();

      // Someone else saves while the editor shows revision 5: archiving there reloads and says so.
      await page.locator(`ul.items a[href="/notes/${id}"]`).click();
      await page.getByText("revision 5").waitFor();
      expect((await trove.api(`/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 5, bodyMarkdown: "Changed elsewhere." } })).status).toBe(200);
      await page.getByRole("button", { name: "Archive" }).click();
      await page.getByRole("status").getByText("Someone else changed this note first").waitFor();
      await page.getByText("revision 6").waitFor();
      expect(await page.getByLabel("Text").inputValue()).toBe("Changed elsewhere.");
      expect(await readNote(id)).toMatchObject({ archived: false, currentRevision: 6 });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);

  inChromium("attach an item found by search with a relation and an annotation; follow it to the reader; remove it", async () => {
    const saved = await (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/article?note-links` } })).json();
    // The item is searchable before the browser looks for it.
    await eventually(async () => {
      const found = await (await trove.api("/api/items/search?q=Parsing%20Things&limit=10")).json();
      return found.items?.some((i: { id: string }) => i.id === saved.id) ?? false;
    }, 20_000);
    const id = await createNote({ title: "Reading about parsers", bodyMarkdown: "Notes on parsing." });
    const { page, errors } = await app.open(`/notes/${id}`);
    try {
      await app.signIn(page);
      const linked = page.getByRole("region", { name: "Linked items" });
      await linked.getByText("No items attached.").waitFor();
      const attach = page.getByRole("form", { name: "Attach an item" });
      await attach.getByLabel("Find an item").fill("Parsing Things");
      await attach.getByRole("radio", { name: "Parsing Things Well" }).check();
      await attach.getByLabel("Relation").selectOption("evidence");
      await attach.getByRole("textbox", { name: "Annotation" }).fill("Shows the tokenizer");
      await attach.getByRole("button", { name: "Attach" }).click();
      await attach.getByRole("status").getByText("Attached.").waitFor();
      const itemLink = linked.getByRole("link", { name: "Parsing Things Well" });
      await itemLink.waitFor();
      await linked.getByText("evidence · Shows the tokenizer").waitFor();
      expect((await readNote(id)).itemLinks).toMatchObject([{ itemId: saved.id, relation: "evidence", annotation: "Shows the tokenizer" }]);

      // The same item again is not attached twice.
      await attach.getByRole("radio", { name: "Parsing Things Well" }).check();
      await attach.getByRole("button", { name: "Attach" }).click();
      await attach.getByRole("status").getByText("already attached").waitFor();
      expect(await linked.locator("li").count()).toBe(1);
      expect((await readNote(id)).itemLinks).toHaveLength(1);

      // The link opens the reader in the app; back returns to the note.
      await itemLink.click();
      await page.waitForURL(new RegExp(`/items/${saved.id}$`));
      await page.getByRole("heading", { name: "Parsing Things Well" }).waitFor();
      await page.goBack();
      await page.waitForURL(new RegExp(`/notes/${id}$`));
      await linked.getByRole("link", { name: "Parsing Things Well" }).waitFor();

      await linked.getByRole("button", { name: "Remove Parsing Things Well" }).click();
      await linked.getByRole("link", { name: "Parsing Things Well" }).waitFor({ state: "detached" });
      await linked.getByText("No items attached.").waitFor();
      expect((await readNote(id)).itemLinks).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, slow);
});
