// Loopback-only servers for the webfetch tests, each recording what reached it, and a resolver that never asks DNS.
import { FetchError } from "./errors.ts";
import type { Resolver } from "./guard.ts";
import type { Server } from "bun";

/** `localhost` is loopback; every other name does not resolve. Tests pass it so no lookup leaves the process. */
export const loopbackOnly: Resolver = async (hostname) => {
  if (hostname.toLowerCase().replace(/\.$/, "") === "localhost") {
    return [
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ];
  }
  throw Object.assign(new Error(`${hostname} does not resolve in tests`), { code: "ENOTFOUND" });
};

/** What reached a server, copied while the request is live (Bun frees Request headers after the response). */
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
}

export interface TestServer {
  port: number;
  /** Base URL with a trailing slash, e.g. http://127.0.0.1:4321/ */
  base: string;
  url(path: string): string;
  /** Every request that reached this server. */
  seen: Seen[];
  stop(): void;
}

export type Handler = (req: Request, server: TestServer) => Response | Promise<Response>;

/** Starts a server on a loopback address (127.0.0.1 by default; 127.0.0.2 and ::1 are loopback too). */
export function startServer(handler: Handler, hostname = "127.0.0.1", port = 0, tls?: { key: string; cert: string }): TestServer {
  const seen: Seen[] = [];
  if (!/^(127\.|::1$|localhost$)/.test(hostname)) throw new Error(`tests listen on loopback only, not ${hostname}`);
  const self: TestServer = {} as TestServer;
  const server: Server<undefined> = Bun.serve({
    hostname,
    port,
    ...(tls ? { tls } : {}),
    fetch(req) {
      const u = new URL(req.url);
      seen.push({ method: req.method, path: u.pathname + u.search, headers: Object.fromEntries(req.headers) });
      return handler(req, self);
    },
  });
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const scheme = tls ? "https" : "http";
  const realPort = server.port ?? 0;
  Object.assign(self, {
    port: realPort,
    base: `${scheme}://${host}:${realPort}/`,
    url: (path: string) => new URL(path, `${scheme}://${host}:${realPort}/`).href,
    seen,
    stop: () => void server.stop(true),
  });
  return self;
}

/** A body that streams `chunks` then, if `stall`, never ends (until the client hangs up). */
export function trickle(chunks: Uint8Array[], opts: { stall?: boolean; delayMs?: number } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      const next = chunks[i++];
      if (next) return controller.enqueue(next);
      if (opts.stall) return new Promise<void>(() => {}); // hold the connection open
      controller.close();
    },
  });
}

/** The FetchError a call fails with (the test fails if it succeeds or fails otherwise). */
export async function failure(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error("expected a FetchError");
}
