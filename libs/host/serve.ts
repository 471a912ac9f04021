// Registers a service's handlers for its entries of the contract table, one bus subject each.
import type { Bus, RequestMeta, Subscription } from "@trove/bus";
import {
  type Caller,
  type Handler,
  type OperationName,
  type Operations,
  type ServiceName,
  operations,
  subjectOf,
} from "@trove/contracts";
import type { Logger } from "@trove/log";

type OpsOf<S extends ServiceName> = { [K in OperationName as Operations[K]["service"] extends S ? K : never]: Operations[K] };

/** Every operation the contract gives service S, each with its typed handler: a missing one fails to typecheck. */
export type HandlerTable<S extends ServiceName> = { [K in keyof OpsOf<S>]: OpsOf<S>[K] extends infer O extends Operations[OperationName] ? Handler<O> : never };

export const callerHeader = "trove-caller";
export const requestIdHeader = "trove-request-id";

export function readCaller(meta: RequestMeta): Caller | null {
  const raw = meta.headers[callerHeader];
  return raw ? (JSON.parse(raw) as Caller) : null;
}

/** Headers for a request one service makes of another on behalf of its caller (the other applies its scope). */
export function callerHeaders(caller: Caller, requestId?: string): Record<string, string> {
  return { [callerHeader]: JSON.stringify(caller), ...(requestId ? { [requestIdHeader]: requestId } : {}) };
}

export function serveOperations<S extends ServiceName>(bus: Bus, service: S, handlers: HandlerTable<S>, log: Logger): Subscription[] {
  return (Object.keys(handlers) as OperationName[]).map((name) => {
    if (operations[name].service !== service) throw new Error(`${name} belongs to ${operations[name].service}, not ${service}`);
    const handler = (handlers as unknown as Record<string, Handler<Operations[OperationName]>>)[name]!;
    return bus.serve(subjectOf(name), async (payload, meta) => {
      const requestId = meta.headers[requestIdHeader] ?? "-";
      // The gateway writes the access line; here a request's logger is made only when something logs.
      let reqLog: Logger | undefined;
      const ctx = {
        caller: readCaller(meta),
        requestId,
        get log() {
          return (reqLog ??= log.child({ reqId: requestId, op: name }));
        },
      };
      if (!log.isLevelEnabled("debug")) return handler(payload as never, ctx);
      const started = performance.now();
      try {
        return await handler(payload as never, ctx);
      } finally {
        ctx.log.debug({ ms: Math.round((performance.now() - started) * 10) / 10 }, "handled");
      }
    });
  });
}
