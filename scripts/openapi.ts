// Writes (--write) or checks (--check) docs/openapi.json, the OpenAPI document the gateway serves.
import { join } from "node:path";
import { MemoryBus } from "@trove/bus";
import { parseConfig } from "@trove/config";
import { createLogger } from "@trove/log";
import { createGatewayApp } from "@trove/gateway";

const file = join(import.meta.dir, "..", "docs", "openapi.json");
const log = createLogger("silent");
const app = createGatewayApp({
  config: parseConfig({}),
  bus: new MemoryBus(log),
  accounts: { authenticate: async () => ({ caller: null }) }, // the document needs no keys
  log,
  // The document needs no handlers either.
  local: Object.fromEntries(
    ["health", "createClient", "listClients", "revokeClient", "createSession", "getSession", "deleteSession", "listSessions", "revokeSession", "setPassword"].map((name) => [name, async () => ({}) as never]),
  ) as never,
});
const res = await app.handle(new Request("http://localhost/api/openapi.json"));
const doc = `${JSON.stringify(await res.json(), null, 2)}\n`;

if (process.argv.includes("--write")) {
  await Bun.write(file, doc);
  console.log(`wrote ${file}`);
} else {
  const committed = await Bun.file(file).text().catch(() => "");
  if (committed !== doc) {
    console.error("docs/openapi.json differs from the contract: run `bun run openapi` and commit the result");
    process.exit(1);
  }
  console.log("docs/openapi.json matches the contract");
}
