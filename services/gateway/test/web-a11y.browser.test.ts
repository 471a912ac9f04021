// The web app against WCAG 2.1 A and AA as axe-core checks them (contrast, labels, names, landmarks' basics), on
// every main screen with real data, in the light and the dark theme. Debian's Chromium through playwright-core;
// where it is missing the suite is a registered skip that says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { chromiumInstalled as installed, chromiumSuite, eventually, startWebApp, type PageServer, type TestTrove, type WebApp } from "@trove/testing";

const slow = 120_000;
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

let app: WebApp;
let trove: TestTrove;
let pages: PageServer;
const ids: Record<string, string> = {};

interface Violation {
  id: string;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now (injected over the debugging protocol, not the page's CSP). */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
  const found: Violation[] = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run((globalThis as any).document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v: Violation) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
  return found.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.help}) at ${n.target.join(" ")}: ${n.failureSummary ?? ""}`));
}

/** Each main screen, and what shows that it has drawn its data. */
const screens: { path: () => string; ready: (page: Page) => Promise<unknown> }[] = [
  { path: () => "/", ready: (p) => p.getByRole("link", { name: "Parsing Things Well" }).first().waitFor() },
  { path: () => `/items/${ids.item}`, ready: (p) => p.locator("mark").first().waitFor() },
  { path: () => "/notes", ready: (p) => p.getByRole("link", { name: "Reading list ideas" }).waitFor() },
  { path: () => `/notes/${ids.note}`, ready: (p) => p.getByLabel("Title").waitFor() },
  { path: () => `/notes/${ids.note}/history`, ready: (p) => p.getByRole("heading").first().waitFor() },
  { path: () => "/projects", ready: (p) => p.getByText("Accessible project").first().waitFor() },
  { path: () => "/settings/clients", ready: (p) => p.getByText("Agent key").waitFor() },
  { path: () => "/settings/webhooks", ready: (p) => p.getByText("Hook for a11y").first().waitFor() },
  { path: () => "/settings/sources", ready: (p) => p.getByRole("heading", { name: "Sources", exact: true }).waitFor() },
  { path: () => "/settings/exports", ready: (p) => p.getByRole("heading", { name: "Exports", exact: true }).waitFor() },
  { path: () => "/settings/imports", ready: (p) => p.getByRole("heading", { name: "Imports", exact: true }).waitFor() },
  { path: () => "/settings/account", ready: (p) => p.getByRole("heading", { name: "Account", exact: true }).waitFor() },
];

const inChromium = test.skipIf(!installed);
describe(chromiumSuite("the web app meets WCAG 2.1 AA (axe-core)"), () => {
  beforeAll(async () => {
    if (!installed) return;
    app = await startWebApp();
    ({ trove, pages } = app);
    const post = async (path: string, json: unknown) => (await trove.api(path, { method: "POST", json })).json();
    ids.item = (await post("/api/ingest", { url: `${pages.url}/article` })).id;
    await eventually(async () => (await (await trove.api(`/api/items/${ids.item}`)).json()).contentAvailable === true, 30_000);
    await post(`/api/items/${ids.item}`, { tags: ["parsing"], notes: "Read again before the talk." });
    await post(`/api/items/${ids.item}/highlights`, { text: "the quick brown parser jumps over the lazy lexer", note: "the point" });
    ids.note = (await post("/api/notes", { title: "Reading list ideas", bodyMarkdown: "# Ideas\n\n- parsers\n- lexers\n", tags: ["reading"] })).note.id;
    await trove.api(`/api/notes/${ids.note}`, { method: "PATCH", json: { expectedRevision: 1, bodyMarkdown: "# Ideas\n\n- parsers\n- lexers\n- grammars\n" } });
    await post("/api/projects", { name: "Accessible project", repositories: ["https://git.example.test/a11y/repo"] });
    await post("/api/connected-clients", { name: "Agent key" });
    await post("/api/webhooks", { name: "Hook for a11y", url: "https://hooks.example.test/a11y", eventTypes: ["*"] });
  }, slow);
  afterAll(() => app?.stop());

  for (const colorScheme of ["light", "dark"] as const) {
    inChromium(`every main screen in the ${colorScheme} theme, the sign-in screen included`, async () => {
      const { page } = await app.open("/", { colorScheme });
      try {
        const found: Record<string, string[]> = {};
        await page.getByRole("form", { name: "Sign in" }).waitFor();
        found["/sign-in"] = await violations(page);
        await app.signIn(page);
        for (const screen of screens) {
          await page.goto(trove.url + screen.path());
          await screen.ready(page);
          found[screen.path()] = await violations(page);
        }
        expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});
        // The check can fail: grey on grey is reported.
        await page.evaluate(() => {
          const doc = (globalThis as any).document;
          const p = doc.createElement("p");
          p.textContent = "Faint words nobody can read";
          Object.assign(p.style, { color: "#777777", background: "#888888" });
          doc.querySelector("main").append(p);
        });
        expect((await violations(page)).some((v) => v.startsWith("color-contrast"))).toBe(true);
      } finally {
        await page.context().close();
      }
    }, slow);
  }
});
