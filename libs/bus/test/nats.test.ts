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

  test("a batch consumer that dies holding a batch with a long allowance: its messages come back within the server's short window", async () => {
    const dead = await open();
    const live = await open();
    try {
      const durable = `batches-${crypto.randomUUID().slice(0, 8)}`;
      const opts = { durable, filter: "held.>", ackWaitMs: 10 * 60_000, batch: 10, retryDelaysMs: [500] };
      const taken = Promise.withResolvers<void>();
      // This handler never finishes: the process holding its batch is about to die.
      await dead.consumeBatches(opts, () => {
        taken.resolve();
        return new Promise<void>(() => {});
      });
      await dead.publish("held.one", { n: 1 }, { id: `held-${durable}` });
      await taken.promise;
      await dead.close();
      const got: string[] = [];
      const sub = await live.consumeBatches(opts, async (events) => void got.push(...events.map((e) => e.id)));
      // Within the server's window (30 s), not the batch's ten minutes; the deadline is generous for a loaded machine.
      const until = Date.now() + 90_000;
      while (got.length === 0 && Date.now() < until) await Bun.sleep(50);
      expect(got).toEqual([`held-${durable}`]);
      await sub.stop();
    } finally {
      await dead.close().catch(() => {});
      await live.close();
    }
  }, 120_000);
} else {
  console.log("SKIPPED nats bus contract: NATS_URL is not set");
  describe.skip("bus contract: nats (skipped: NATS_URL is not set)", () => test("the bus contract", () => {}));
}
