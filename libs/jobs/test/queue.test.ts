// Real: PGlite in memory, and PostgreSQL at DATABASE_URL when set (a scratch database, two connection pools as
// two processes have); the wake across processes goes over the in-process bus, or NATS at NATS_URL.
import { describe, test } from "bun:test";
import { MemoryBus } from "@trove/bus";
import { dropNatsNamespace, NatsBus } from "@trove/bus/nats.ts";
import { openDatabase } from "@trove/db";
import { createLogger } from "@trove/log";
import { createScratchDatabase } from "@trove/testing/postgres.ts";
import { queueSuite } from "./contract.ts";

const log = createLogger("silent");

queueSuite("pglite", {
  open: () => openDatabase({}),
  second: async (first) => first,
  buses: async () => {
    const bus = new MemoryBus(log);
    return { a: bus, b: bus, close: () => bus.close() };
  },
});

if (process.env.DATABASE_URL) {
  let url: string | undefined;
  queueSuite("postgres", {
    open: async () => openDatabase({ databaseUrl: (url = await createScratchDatabase("jobs")) }),
    second: async () => openDatabase({ databaseUrl: url! }),
    buses: async () => {
      const natsUrl = process.env.NATS_URL;
      if (!natsUrl) {
        const bus = new MemoryBus(log);
        return { a: bus, b: bus, close: () => bus.close() };
      }
      const prefix = `jq${crypto.randomUUID().slice(0, 8)}`;
      const a = await NatsBus.connect({ url: natsUrl, prefix, log, name: "jobs-a" });
      const b = await NatsBus.connect({ url: natsUrl, prefix, log, name: "jobs-b" });
      return {
        a,
        b,
        close: async () => {
          await a.close();
          await b.close();
          await dropNatsNamespace(natsUrl, prefix).catch(() => {});
        },
      };
    },
  });
} else {
  console.log("SKIPPED postgres work queue suite: DATABASE_URL is not set");
  describe.skip("work queue on postgres (skipped: DATABASE_URL is not set)", () => test("the work queue suite", () => {}));
}
