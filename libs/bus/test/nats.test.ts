// Real: nats-server with JetStream at NATS_URL; a fresh prefix per run so runs never collide.
import { afterAll, describe, test } from "bun:test";
import { createLogger } from "@trove/log";
import { NatsBus, dropNatsNamespace } from "../nats.ts";
import { busContract } from "./contract.ts";

const url = process.env.NATS_URL;
if (url) {
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  const open = () => NatsBus.connect({ url, prefix, log: createLogger("silent") });
  busContract("nats", open, open);
  afterAll(() => dropNatsNamespace(url, prefix));
} else {
  console.log("SKIPPED nats bus contract: NATS_URL is not set");
  describe.skip("bus contract: nats (skipped: NATS_URL is not set)", () => test("the bus contract", () => {}));
}
