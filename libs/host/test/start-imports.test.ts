// What an embedded Trove holds in memory once started: the libraries only a worker task, an export, an import, an
// OPML file, the MCP endpoint or the distributed deployment needs are not loaded until then (each module a process
// loads stays resident for its life). Checked in a fresh process that starts every service and answers a request.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@trove/testing";

const dataDir = mkdtempSync(join(tmpdir(), "trove-start-imports-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Started in the child: every service, one request through the gateway, then the packages it has loaded. */
const script = `
import { startHost } from "@trove/host";
import { config } from "@trove/config";
import { allServices } from "./services.ts";
const host = await startHost(allServices, { config: config(), admin: false });
const health = await fetch(host.url + "/api/health");
const packages = new Set();
for (const path of Object.keys(require.cache)) {
  const m = /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(path);
  if (m) packages.add(m[1]);
}
console.log(JSON.stringify({ status: health.status, packages: [...packages].sort() }));
await host.stop();
process.exit(0);
`;

/** Each only when its work comes: worker tasks, exports and imports, OPML, MCP, PostgreSQL, NATS. */
const notAtStart = [
  "linkedom",
  "turndown",
  "@mozilla/readability",
  "@energetic-ai/core",
  "@energetic-ai/embeddings",
  "mailparser",
  "feedsmith",
  "archiver",
  "fflate",
  "csv-parse",
  "yaml",
  "@modelcontextprotocol/sdk",
  "pg",
  "@nats-io/nats-core",
  "@nats-io/jetstream",
  "@nats-io/obj",
];

test("an embedded Trove, started and answering, has loaded none of the libraries that only later work needs", async () => {
  const env: Record<string, string | undefined> = { ...process.env, TROVE_DATA_DIR: dataDir, PORT: "0", TROVE_ADMIN_PORT: "off", TROVE_SMTP_PORT: "0", LOG_LEVEL: "error" };
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  const child = Bun.spawn(["bun", "-e", script], { cwd: repoRoot, env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
  const { status, packages } = JSON.parse(out.trim().split("\n").at(-1)!) as { status: number; packages: string[] };
  expect(status).toBe(200);
  // The check reads what was loaded: the server's own libraries are there.
  expect(packages).toEqual(expect.arrayContaining(["elysia", "kysely", "@electric-sql/pglite"]));
  expect(packages.filter((p) => notAtStart.includes(p))).toEqual([]);
});
