// `bun run screenshots`: PNGs of the web app's main screens, light and dark, at a desktop's and a phone's width,
// into docs/screenshots/ (for review and the README). It runs a Trove of its own (in this process, on PGlite),
// fills it from a local page server, and drives Debian's Chromium (/usr/bin/chromium) through playwright-core.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { aliceKey, chromiumInstalled, chromiumPath, launchChromium, repoRoot, startPageServer, startTrove } from "@trove/testing";

if (!chromiumInstalled) {
  console.error(`screenshots: ${chromiumPath} is missing (apt-get install -y chromium)`);
  process.exit(2);
}
const out = join(repoRoot, "docs", "screenshots");
mkdirSync(out, { recursive: true });
const password = "screenshots passphrase";

const pages = startPageServer();
const trove = await startTrove({
  LOG_LEVEL: "silent",
  TROVE_RATE_LIMIT: "100000",
  TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "reader@example.test", apiKey: aliceKey, password }]),
});
const browser = await launchChromium();
try {
  const api = (path: string, json?: unknown) => trove.api(path, json === undefined ? {} : { method: "POST", json }).then((r) => r.json());
  const saved = [];
  for (const path of ["/article", "/article-copy", "/notes.txt", "/latin1"]) saved.push(await api("/api/ingest", { url: `${pages.url}${path}` }));
  await api(`/api/items/${saved[0].id}`, { tags: ["parsing", "reading"] });
  await api(`/api/items/${saved[0].id}/highlights`, { text: "the quick brown parser jumps over the lazy lexer", note: "the key line" });
  const note = await api("/api/notes", { title: "Parser notes", bodyMarkdown: "# Parser notes\n\n- Tokenize first\n- Then descend\n\nSee the saved article." });
  await api("/api/webhooks", { name: "Local receiver", url: "http://127.0.0.1:9/hook" });
  await api("/api/sources", { type: "email_inbox", name: "Newsletters" });
  const bookmarks = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p><DT><A HREF="${pages.url}/article-copy" TAGS="parsing">Parsing Things Well</A>\n<DT><A HREF="ftp://files.invalid/x">Not a page</A></DL>`;
  await trove.api("/api/imports?fileName=bookmarks.html", { method: "POST", body: bookmarks, headers: { "content-type": "text/html" } });

  const screens: [string, string][] = [
    ["library", "/"],
    ["reader", `/items/${saved[0].id}`],
    ["notes", "/notes"],
    ["note", `/notes/${note.note.id}`],
    ["sources", "/settings/sources"],
    ["imports", "/settings/imports"],
    ["webhooks", "/settings/webhooks"],
    ["account", "/settings/account"],
  ];
  for (const colorScheme of ["light", "dark"] as const) {
    for (const [device, viewport] of [["desktop", { width: 1280, height: 800 }], ["phone", { width: 390, height: 844 }]] as const) {
      const context = await browser.newContext({ colorScheme, viewport, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await page.goto(trove.url);
      await page.getByLabel("Email").fill("reader@example.test");
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" }).waitFor();
      for (const [name, path] of screens) {
        await page.goto(trove.url + path);
        await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" }).waitFor();
        await page.waitForLoadState("networkidle");
        const file = join(out, `${name}-${colorScheme}-${device}.png`);
        await page.screenshot({ path: file });
        console.log(`wrote ${file}`);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await trove.stop();
  pages.stop();
}
