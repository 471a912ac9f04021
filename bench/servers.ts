// Minimal servers for bench/http.ts: `bare <port>` (Elysia JSON), `echo-service` (answers bench.echo on NATS),
// `echo-gateway <port>` (Elysia route -> NATS request -> reply).
import { Elysia } from "elysia";
import { NatsBus } from "@trove/bus";
import { createLogger } from "@trove/log";

const [mode, port] = process.argv.slice(2);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const prefix = process.env.TROVE_BUS_PREFIX ?? "bench";
const log = createLogger("warn");

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
} else {
  console.error("usage: servers.ts bare <port> | echo-service | echo-gateway <port>");
  process.exit(2);
}
