// The admin server of every Trove process, on its own port (TROVE_ADMIN_PORT) so that probes and scrapes never
// meet the API's rate limit, authentication or intake: GET /healthz (the event loop runs), GET /readyz (the
// database and the bus answer, and no stop has begun) and GET /metrics (Prometheus text). It starts before
// anything else (a long migration still answers /healthz) and closes last.
import type { Logger } from "@trove/log";
import { collectProcessMetrics, scrape } from "@trove/metrics";
import type { Readiness } from "./readiness.ts";

export interface AdminServer {
  /** Where it listens, e.g. http://127.0.0.1:9464. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface AdminOptions {
  port: number;
  host: string;
  readiness: Readiness;
  log: Logger;
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json;charset=utf-8", "cache-control": "no-store" } });

export function startAdminServer(opts: AdminOptions): AdminServer {
  collectProcessMetrics();
  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path !== "/healthz" && path !== "/readyz" && path !== "/metrics") return json(404, { error: "not_found", message: "GET /healthz, /readyz or /metrics" });
    if (request.method !== "GET" && request.method !== "HEAD") return json(405, { error: "method_not_allowed", message: `${path} answers GET` });
    if (path === "/healthz") return json(200, { status: "ok" });
    if (path === "/readyz") {
      const { status, body } = opts.readiness.report();
      return json(status, body);
    }
    const { contentType, body } = await scrape();
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  };
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      port: opts.port,
      hostname: opts.host,
      fetch: handle,
      error: (err) => {
        opts.log.error({ err }, "admin request failed");
        return json(500, { error: "internal_error", message: "the admin request failed" });
      },
    });
  } catch (err) {
    const inUse = (err as { code?: string }).code === "EADDRINUSE" || /in use/i.test((err as Error).message ?? "");
    const why = inUse ? "is in use" : `cannot be listened on: ${(err as Error).message}`;
    throw new Error(`the admin port ${opts.host}:${opts.port} ${why}; set TROVE_ADMIN_PORT to a free port, 0 for any free port, or off`);
  }
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${server.port}`;
  opts.log.info({ url }, "admin server listening (/healthz, /readyz, /metrics)");
  return {
    url,
    port: server.port!,
    stop: async () => {
      await server.stop(true);
    },
  };
}
