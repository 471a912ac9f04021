// The web app in Debian's Chromium against a Trove of its own (in this process, PGlite): the first load of the
// library (bytes over the wire, and the time from navigation until the first items are on screen), cold (a fresh
// browser profile) and warm (a reload: the hashed assets come from the cache), on a library of 100 real pages
// and then of 10,000 items (the saved pages copied in SQL).
//   bun run bench:web            print the table
//   bun run bench:web --write    also replace "## Web app: first load and the library" in docs/benchmarks.md
import type { BrowserContext } from "playwright-core";
import { aliceKey, chromiumInstalled, chromiumPath, launchChromium, startTrove } from "@trove/testing";
import { copyToSize, corpusPages, loadThroughApi } from "./library.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";

if (!chromiumInstalled) {
  console.error(`bench:web: ${chromiumPath} is missing (apt-get install -y chromium)`);
  process.exit(2);
}
const RUNS = 7;
const password = "bench passphrase";

const trove = await startTrove({
  LOG_LEVEL: "silent",
  TROVE_RATE_LIMIT: "100000000",
  // Every measured run signs in afresh.
  TROVE_SIGN_IN_LIMIT: "1000000",
  TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "alice@example.test", apiKey: aliceKey, password }]),
});
const browser = await launchChromium();

interface Load {
  ms: number;
  bytes: number;
  requests: number;
}

/** A signed-in browser profile (the session cookie set, as after the sign-in screen). */
async function signedIn(): Promise<BrowserContext> {
  const res = await trove.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password } });
  const token = /trove_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  const context = await browser.newContext();
  await context.addCookies([{ name: "trove_session", value: token, url: trove.url }]);
  return context;
}

/** Navigates (or reloads) and waits for the first item link; answers the time and what came over the wire. */
async function load(context: BrowserContext, reload: boolean): Promise<Load> {
  const page = context.pages()[0] ?? (await context.newPage());
  let bytes = 0;
  let requests = 0;
  const onResponse = async (r: { request(): { sizes(): Promise<{ responseBodySize: number; responseHeadersSize: number }> } }) => {
    const sizes = await r.request().sizes().catch(() => null);
    if (sizes) bytes += sizes.responseBodySize + sizes.responseHeadersSize;
  };
  page.on("requestfinished", (req) => {
    requests++;
    void onResponse({ request: () => req });
  });
  const started = performance.now();
  if (reload) await page.reload({ waitUntil: "commit" });
  else await page.goto(`${trove.url}/`, { waitUntil: "commit" });
  await page.locator("ul.items a").first().waitFor();
  const ms = performance.now() - started;
  await page.waitForLoadState("networkidle");
  page.removeAllListeners("requestfinished");
  return { ms, bytes, requests };
}

async function measure(): Promise<{ cold: Load[]; warm: Load[] }> {
  const cold: Load[] = [];
  const warm: Load[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await signedIn();
    cold.push(await load(context, false));
    warm.push(await load(context, true));
    await context.close();
  }
  return { cold, warm };
}

const row = (label: string, runs: Load[]) => {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const kb = (runs.map((r) => r.bytes).sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? 0) / 1024;
  return `| ${label} | ${quantile(ms, 0.5).toFixed(0)} ms | ${ms.at(-1)!.toFixed(0)} ms | ${kb.toFixed(1)} KB | ${runs[0]!.requests} |`;
};

try {
  const loaded = await loadThroughApi(trove.url, corpusPages(100), 3);
  // The app is built on the first request for it: that one is not measured.
  await (await signedIn()).close();
  await fetch(`${trove.url}/`);
  const small = await measure();
  const grown = await copyToSize(trove.db, 10_000);
  const large = await measure();
  const rows = [
    row(`${loaded.items.length} items, cold`, small.cold),
    row(`${loaded.items.length} items, warm (reload)`, small.warm),
    row("10,000 items, cold", large.cold),
    row("10,000 items, warm (reload)", large.warm),
  ];
  const section = [
    `## Web app: first load and the library (${today()})`,
    "",
    `\`bun run bench:web\`: Debian's Chromium (headless) against a Trove in the bench's process (PGlite), signed in by cookie; the library screen from navigation until its first item link is on screen, ${RUNS} times each: cold (a fresh profile, nothing cached) and warm (a reload; the hashed script and stylesheet come from the cache, the shell and the API answers do not). The library held ${loaded.items.length} real pages saved through the API, then 10,000 items (the pages copied in SQL, ${grown.seconds.toFixed(1)} s). Bytes: response headers and bodies as they came over the wire (the script and stylesheet gzipped; the shell and the API's JSON are not), median run.`,
    "",
    "| library | time to first items, median | slowest | bytes | requests |",
    "|---|---:|---:|---:|---:|",
    ...rows,
    "",
    "The screen asks for the first 100 items (and the count): the list's cost does not grow with the library, only the count and the ordering do.",
    "",
    await machineLine(),
  ].join("\n");
  console.log(section);
  if (process.argv.includes("--write")) await writeSection("Web app: first load and the library", section);
} finally {
  await browser.close();
  await trove.stop();
}
