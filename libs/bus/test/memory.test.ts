// Real: the in-process bus.
import { expect, test } from "bun:test";
import { createLogger } from "@trove/log";
import { MemoryBus } from "../memory.ts";
import { busContract } from "./contract.ts";

// One bus per process: another "process" of the embedded deployment is the same bus.
busContract("in-process", async () => new MemoryBus(createLogger("silent")), async (bus) => bus);

test("a consumer working through a burst larger than the kept events still gets every event of it", async () => {
  const bus = new MemoryBus(createLogger("silent"));
  try {
    // One place, held until every event is published: the consumer is 110,001 events behind, past the 100,000 kept.
    const gate = Promise.withResolvers<void>();
    const got = new Set<number>();
    await bus.consume({ durable: "burst", filter: "burst.*", maxInFlight: 1 }, async (e) => {
      await gate.promise;
      got.add((e.data as { n: number }).n);
    });
    const total = 110_001;
    for (let n = 0; n < total; n++) await bus.publish("burst.e", { n }, { id: `burst-${n}` });
    gate.resolve();
    const until = Date.now() + 60_000;
    while (got.size < total && Date.now() < until) await Bun.sleep(20);
    expect(got.size).toBe(total);
  } finally {
    await bus.close();
  }
});
