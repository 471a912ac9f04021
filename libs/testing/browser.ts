// Debian's Chromium for the browser tests, the screenshots and the web bench: where it is, whether it is there,
// and how it is started (headless, no sandbox, nothing of its own on the network; only loopback resolves).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const chromiumPath = "/usr/bin/chromium";

/** True when Chromium is installed (`apt-get install -y chromium`); browser suites are named skips otherwise. */
export const chromiumInstalled = existsSync(chromiumPath);

export const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Nothing but loopback resolves: even a bug in a page could not reach past this machine.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
}
