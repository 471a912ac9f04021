// pino JSON logs. Every line of a request carries its `reqId`, made at the gateway and carried over the bus.
import pino from "pino";

export type Logger = pino.Logger;

/** A JSON logger; `destination` lets tests read the lines a request wrote. Without one, lines go to stdout
 * through a buffer (a synchronous write per line cost ~10 % of a service's CPU); `flushLogs` empties it. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: pino.DestinationStream): Logger {
  const options = { level, base: bindings, timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, destination ?? stdout());
}

let out: ReturnType<typeof pino.destination> | undefined;
function stdout() {
  out ??= pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return out;
}

/** Writes out buffered log lines (before the process exits). */
export function flushLogs(): void {
  try {
    out?.flushSync();
  } catch {
    // Nothing buffered or stdout already closed.
  }
}

/** A fresh request id: short, unique enough for correlating one request's lines. */
export function newRequestId(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}
