// The API reference in a real browser: Debian's Chromium, driven by playwright-core, loads /api/docs from a test
// Trove. Every request the page makes and every Content-Security-Policy violation is recorded: none may leave the
// origin, and the page must show the API. Where /usr/bin/chromium is missing the suite is a registered skip that
// says so (.ci/run installs Chromium when it can).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { chromiumInstalled as installed, chromiumPath, launchChromium, startTrove, type TestTrove } from "@trove/testing";

// Code passed to page.evaluate runs in the browser; the project type-checks without the DOM library.
declare const document: any;
declare const window: any;

// Starting Chromium and parsing the 1.7 MB bundle takes seconds on a busy machine: past bun's 5 s default.
const slow = 60_000;

interface Watched {
  page: Page;
  /** Every URL the page asked for, including requests the policy blocked. */
  requests: string[];
  /** "directive blocked-uri" for each CSP violation the page reported. */
  violations: string[];
  /** Uncaught exceptions in the page. */
  errors: string[];
}

let trove: TestTrove;
let browser: Browser;

async function openDocs(): Promise<Watched> {
  const page = await browser.newPage();
  const watched: Watched = { page, requests: [], violations: [], errors: [] };
  page.on("request", (r) => void watched.requests.push(r.url()));
  page.on("pageerror", (e) => void watched.errors.push(e.message));
  await page.exposeBinding("troveViolation", (_source, text: string) => void watched.violations.push(text));
  await page.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (e: any) => window.troveViolation(`${e.violatedDirective} ${e.blockedURI}`)),
  );
  // "load": the page's scripts and styles have been fetched (or refused) and run.
  await page.goto(`${trove.url}/api/docs`);
  return watched;
}

/** Swagger UI has fetched the document and drawn the operations. */
const rendered = (page: Page) => page.getByText("Save a web page").first().waitFor();

const offOrigin = (urls: string[]) => urls.filter((u) => new URL(u).origin !== new URL(trove.url).origin);

// Each test is a registered skip, named with the reason, where Chromium is missing.
const inChromium = test.skipIf(!installed);
describe(
  installed ? "the API reference in Chromium" : `the API reference in Chromium (SKIPPED: ${chromiumPath} is not installed; apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      if (!installed) return;
      [trove, browser] = await Promise.all([startTrove(), launchChromium()]);
    }, slow);
    afterAll(async () => {
      await browser?.close();
      await trove?.stop();
    });

    inChromium("renders the API from the origin alone: every request stays on it and nothing is blocked", async () => {
      const { page, requests, violations, errors } = await openDocs();
      try {
        expect(offOrigin(requests)).toEqual([]);
        await rendered(page);
        await expect(page.getByText("/api/ingest", { exact: true }).first().isVisible()).resolves.toBe(true);
        await expect(page.getByText("Trove API").first().isVisible()).resolves.toBe(true);
        const paths = requests.map((u) => new URL(u).pathname);
        expect(paths).toContain("/api/openapi.json");
        expect(paths.some((p) => p.endsWith("/swagger-ui-bundle.js"))).toBe(true);
        expect(offOrigin(requests)).toEqual([]);
        expect(violations).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, slow);

    inChromium("Try it out calls the API on the same origin and shows the answer", async () => {
      const { page, requests, violations } = await openDocs();
      try {
        await rendered(page);
        const health = page.locator("#operations-Account-health");
        await health.locator(".opblock-summary").click();
        await health.getByRole("button", { name: "Try it out" }).click();
        const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/health");
        await health.getByRole("button", { name: "Execute" }).click();
        expect((await answered).status()).toBe(200);
        await health.locator(".live-responses-table .response .response-col_status").first().waitFor();
        expect((await health.locator(".live-responses-table .response .response-col_status").first().innerText()).trim()).toBe("200");
        expect(offOrigin(requests)).toEqual([]);
        expect(violations).toEqual([]);
      } finally {
        await page.close();
      }
    }, slow);

    inChromium("the policy is enforced: a script from another origin is refused, and the recorder sees the attempt", async () => {
      const { page, requests, violations } = await openDocs();
      try {
        await rendered(page);
        const refused = page.waitForEvent("requestfailed", (r) => r.url().startsWith("http://elsewhere.invalid/"));
        const reported = await page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              document.addEventListener("securitypolicyviolation", (e: any) => resolve(`${e.violatedDirective} ${e.blockedURI}`), { once: true });
              const script = document.createElement("script");
              script.src = "http://elsewhere.invalid/x.js";
              document.body.append(script);
            }),
        );
        expect(reported).toBe("script-src-elem http://elsewhere.invalid/x.js");
        expect((await refused).failure()?.errorText).toBe("csp");
        expect(offOrigin(requests)).toEqual(["http://elsewhere.invalid/x.js"]);
        expect(violations).toContain(reported);
      } finally {
        await page.close();
      }
    }, slow);
  },
);
