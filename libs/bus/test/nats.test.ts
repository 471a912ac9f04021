// Real: nats-server with JetStream at NATS_URL; a fresh prefix per run so runs never collide.
import { describe, test } from "bun:test";
import { createLogger } from "@trove/log";
import { NatsBus } from "../nats.ts";
import { busContract } from "./contract.ts";

const url = process.env.NATS_URL;
if (url) {
  busContract("nats", () =>
    NatsBus.connect({ url, prefix: `t${crypto.randomUUID().slice(0, 8)}`, log: createLogger("silent") }),
  );
} else {
  console.log("SKIPPED nats bus contract: NATS_URL is not set");
  describe.skip("bus contract: nats", () => test("needs NATS_URL", () => {}));
}
