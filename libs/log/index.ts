// pino JSON logs. Every line of a request carries its `reqId`, made at the gateway and carried over the bus.
import pino from "pino";

export type Logger = pino.Logger;

export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: bindings, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A fresh request id: short, unique enough for correlating one request's lines. */
export function newRequestId(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}
