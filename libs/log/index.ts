// pino JSON logs. Every line of a request carries its `reqId`, made at the gateway and carried over the bus.
import pino from "pino";

export type Logger = pino.Logger;

/** A JSON logger; `destination` lets tests read the lines a request wrote. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: pino.DestinationStream): Logger {
  const options = { level, base: bindings, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}

/** A fresh request id: short, unique enough for correlating one request's lines. */
export function newRequestId(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}
