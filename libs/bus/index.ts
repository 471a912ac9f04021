export * from "./bus.ts";
export { MemoryBus } from "./memory.ts";
// The NATS bus and connection (./nats.ts, ./connect.ts) are imported by path, never from here, so a process on the
// in-process bus never loads the NATS client.
export type { NatsBus } from "./nats.ts";
export type { NatsAccess } from "./connect.ts";
export type { BatchConsumeOptions, BatchConsumer, StreamEvent } from "./batches.ts";
import type { Logger } from "@trove/log";
import type { Bus } from "./bus.ts";
import { MemoryBus } from "./memory.ts";
import type { NatsAccess } from "./connect.ts";

/** NATS when a URL is given, else the in-process bus. */
export async function openBus(opts: { natsUrl?: string; prefix: string; log: Logger; name?: string; access?: NatsAccess }): Promise<Bus> {
  if (!opts.natsUrl) return new MemoryBus(opts.log);
  const { NatsBus } = await import("./nats.ts");
  return NatsBus.connect({ url: opts.natsUrl, prefix: opts.prefix, log: opts.log, name: opts.name, access: opts.access });
}
