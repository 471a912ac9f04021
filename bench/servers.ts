// Minimal servers for bench/http.ts: `bare <port>` (Elysia JSON), `echo-service` (answers bench.echo on NATS),
// `echo-gateway <port>` (Elysia route -> NATS request -> reply), and `pglite <port> <dataDir>`: Elysia over the
// embedded deployment's own PGlite directory, opened as Trove opens it, answering an item row by primary key
// (`/items/:id`) and the 50 newest rows of an account (`/items?account=&content=1`), nothing else: the ceiling of
// the embedded deployment.
import { Elysia } from "elysia";
import { NatsBus } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { createLogger } from "@trove/log";
import { query } from "./sql.ts";

const [mode, port, dataDir] = process.argv.slice(2);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const prefix = process.env.TROVE_BUS_PREFIX ?? "bench";
const log = createLogger("warn");

// The columns of a list row without content, as Trove's list reads them.
const listColumns =
  "id, account_id, url, url_hash, title, favicon, status, times_added, notes, source, created_at, updated_at, last_seen_at, " +
    "processed_at, content_key, content_size, content_truncated, content_source, content_extracted_at, content_extract_error, " +
    "content_capture_id, highlight_count, tags, collections";

if (mode === "bare") {
  new Elysia().get("/json", () => ({ hello: "world" })).listen({ port: Number(port), hostname: "127.0.0.1" });
} else if (mode === "echo-service") {
  const bus = await NatsBus.connect({ url: natsUrl, prefix, log });
  bus.serve("bench.echo", (payload) => payload);
} else if (mode === "echo-gateway") {
  const bus = await NatsBus.connect({ url: natsUrl, prefix, log });
  new Elysia()
    .get("/echo", () => bus.request("bench.echo", { hello: "world" }))
    .listen({ port: Number(port), hostname: "127.0.0.1" });
} else if (mode === "pglite" && dataDir) {
  const { db } = await openDatabase({ dataDir });
  new Elysia()
    .get("/items/:id", async ({ params, status }) => {
      const [row] = await query(db, "select * from items.items where id = $1", [params.id]);
      return row ?? status(404, { error: "not_found" });
    })
    .get("/items", async ({ query: q }) => {
      const columns = q.content === "1" ? "*" : listColumns;
      const rows = await query(db, `select ${columns} from items.items where account_id = $1 order by created_at desc, id desc limit 50`, [q.account ?? ""]);
      return { items: rows };
    })
    .listen({ port: Number(port), hostname: "127.0.0.1" });
} else {
  console.error("usage: servers.ts bare <port> | echo-service | echo-gateway <port> | pglite <port> <dataDir>");
  process.exit(2);
}
