// The web app's browser suites share one setup: a test Trove with alice able to sign in by password, the local page
// server, Chromium, and pages that record what they asked for, their errors and any CSP violation.
import type { Browser, Page } from "playwright-core";
import { chromiumInstalled, chromiumPath, launchChromium } from "./browser.ts";
import { startPageServer, type PageServer } from "./pages.ts";
import { aliceKey, bobKey, startTrove, type TestTrove } from "./trove.ts";

export const webAppPassword = "alice's browser passphrase";

/** A browser suite's describe name; where Chromium is missing it says the suite is skipped and why. */
export const chromiumSuite = (name: string): string =>
  chromiumInstalled ? name : `${name} (SKIPPED: ${chromiumPath} is not installed; apt-get install -y chromium)`;

export interface WebAppOptions {
  /** Added to (or overriding) the test Trove's environment. */
  env?: Record<string, string>;
  /** alice's password. */
  password?: string;
  /** TROVE_SEED_ACCOUNTS in place of alice (aliceKey, the password) and bob (bobKey). */
  accounts?: Record<string, unknown>[];
  /** Also record each request off the app's origin in `errors`, so that `errors` being empty proves none was made. */
  offOriginErrors?: boolean;
}

export interface WatchedPage {
  page: Page;
  /** Every URL the page asked for. */
  requests: string[];
  /** CSP violations, as "directive blocked-URI". */
  violations: string[];
  /** Uncaught page errors. */
  errors: string[];
}

export interface WebApp {
  trove: TestTrove;
  pages: PageServer;
  browser: Browser;
  password: string;
  /** A new browser context and page at `path` on the app (signed out: contexts share no cookies). */
  open(path?: string, opts?: { colorScheme?: "light" | "dark" }): Promise<WatchedPage>;
  /** Fills the sign-in form as alice and waits until the app shows it is signed in. */
  signIn(page: Page): Promise<void>;
  /** The URLs not on the app's origin (data: URLs are the page's own). */
  offOrigin(urls: string[]): string[];
  stop(): Promise<void>;
}

export async function startWebApp(opts: WebAppOptions = {}): Promise<WebApp> {
  const password = opts.password ?? webAppPassword;
  const accounts = opts.accounts ?? [
    { email: "alice@example.test", apiKey: aliceKey, password },
    { email: "bob@example.test", apiKey: bobKey },
  ];
  const pages = startPageServer();
  const [troveStarted, browserLaunched] = await Promise.allSettled([
    startTrove({
      // The tests poll the API for what the app did, and every test signs in (the sign-in budget per address is
      // tested in sessions.test.ts).
      TROVE_RATE_LIMIT: "100000",
      TROVE_SIGN_IN_LIMIT: "1000",
      TROVE_SEED_ACCOUNTS: JSON.stringify(accounts),
      ...opts.env,
    }),
    launchChromium(),
  ]);
  if (troveStarted.status === "rejected" || browserLaunched.status === "rejected") {
    // Whichever did start is not left running.
    if (troveStarted.status === "fulfilled") await troveStarted.value.stop();
    if (browserLaunched.status === "fulfilled") await browserLaunched.value.close();
    pages.stop();
    throw troveStarted.status === "rejected" ? troveStarted.reason : (browserLaunched as PromiseRejectedResult).reason;
  }
  const trove = troveStarted.value;
  const browser = browserLaunched.value;
  const origin = new URL(trove.url).origin;
  const offOrigin = (urls: string[]) => urls.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin);

  return {
    trove,
    pages,
    browser,
    password,
    offOrigin,
    async open(path = "/", { colorScheme } = {}) {
      const context = await browser.newContext(colorScheme ? { colorScheme } : {});
      const page = await context.newPage();
      const watched: WatchedPage = { page, requests: [], violations: [], errors: [] };
      page.on("request", (r) => {
        watched.requests.push(r.url());
        if (opts.offOriginErrors && offOrigin([r.url()]).length) watched.errors.push(`request off origin: ${r.url()}`);
      });
      page.on("pageerror", (e) => void watched.errors.push(e.message));
      // The page reports CSP violations to the test through a binding, from before any of its own script runs.
      await page.exposeBinding("troveViolation", (_source, text: string) => void watched.violations.push(text));
      await page.addInitScript(() =>
        (globalThis as any).document.addEventListener("securitypolicyviolation", (e: any) => (globalThis as any).troveViolation(`${e.violatedDirective} ${e.blockedURI}`)),
      );
      await page.goto(trove.url + path);
      return watched;
    },
    async signIn(page) {
      await page.getByLabel("Email").fill("alice@example.test");
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" }).waitFor();
    },
    async stop() {
      await browser.close();
      await trove.stop();
      pages.stop();
    },
  };
}
