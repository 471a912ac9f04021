// A consumer of the log in the distributed deployment: the relay has published the log to JetStream, and the
// consumer is a durable JetStream consumer of the same name (so an installation keeps its place when a consumer
// moves from the bus onto the log), handed batches, acknowledged once the handler resolved, never given up on.
import type { NatsBus } from "@trove/bus";
import type { Logger } from "@trove/log";
import { eventOfMessage } from "./envelope.ts";
import type { BatchHandler } from "./types.ts";

export interface JetStreamReaderOptions {
  name: string;
  filter: string;
  batch: number;
  ackWaitMs: number;
  retryDelaysMs: number[];
  log: Logger;
}

export interface JetStreamReader {
  stop(): Promise<void>;
  lag(): Promise<number>;
}

export async function readJetStream(bus: NatsBus, opts: JetStreamReaderOptions, handler: BatchHandler): Promise<JetStreamReader> {
  const consumer = await bus.consumeBatches(
    { durable: opts.name, filter: opts.filter, ackWaitMs: opts.ackWaitMs, batch: opts.batch, retryDelaysMs: opts.retryDelaysMs, log: opts.log },
    (messages) => handler(messages.map(eventOfMessage)),
  );
  return { stop: () => consumer.stop(), lag: () => consumer.pending() };
}
