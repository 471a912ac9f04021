// Real: nats-server with JetStream at NATS_URL; a fresh prefix per run so runs never collide.
import { createServer, connect, type Socket } from "node:net";
import { afterAll, describe, expect, test } from "bun:test";
import { createLogger } from "@trove/log";
import { NatsBus, dropNatsNamespace } from "../nats.ts";
import { busContract } from "./contract.ts";

const url = process.env.NATS_URL;
if (url) {
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  const open = () => NatsBus.connect({ url, prefix, log: createLogger("silent") });
  busContract("nats", open, open, { events: true });
  afterAll(() => dropNatsNamespace(url, prefix));

  test("a bus whose connection drops runs its reconnect listeners once connected again, and serves again", async () => {
    // A TCP relay on 127.0.0.1 in front of the server, so the test can cut this bus's connection alone.
    const server = new URL(url);
    const live = new Set<Socket>();
    const relay = createServer((client) => {
      const upstream = connect(Number(server.port || 4222), server.hostname);
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) {
        live.add(s);
        s.on("error", cut).on("close", () => live.delete(s) && cut());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const port = (relay.address() as { port: number }).port;
    const bus = await NatsBus.connect({ url: `nats://127.0.0.1:${port}`, prefix, log: createLogger("silent") });
    try {
      let reconnects = 0;
      const sub = bus.onReconnect(() => reconnects++);
      for (const s of [...live]) s.destroy();
      const until = Date.now() + 10_000;
      while (reconnects === 0 && Date.now() < until) await Bun.sleep(20);
      expect(reconnects).toBe(1);
      bus.serve("after.reconnect", () => ({ ok: true }));
      expect(await bus.request("after.reconnect", {})).toEqual({ ok: true });
      await sub.stop();
    } finally {
      await bus.close();
      relay.close();
    }
  });
} else {
  console.log("SKIPPED nats bus contract: NATS_URL is not set");
  describe.skip("bus contract: nats (skipped: NATS_URL is not set)", () => test("the bus contract", () => {}));
}
