// A small round-robin HTTP proxy in front of the gateways, as a Kubernetes Service or an ingress would be: each
// request goes to the next gateway; a gateway that refuses the connection is skipped for that request. It tells
// the gateway who the client is with X-Forwarded-For, so the gateways trust it (TROVE_TRUSTED_PROXIES).
import type { Server } from "bun";

export interface RoundRobin {
  url: string;
  stop(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110, 7.6.1) end at the proxy. */
const hopByHop = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"];

export function startRoundRobin(opts: { port: number; hostname?: string; targets: () => string[] }): RoundRobin {
  let next = 0;
  const server: Server<undefined> = Bun.serve({
    port: opts.port,
    hostname: opts.hostname ?? "127.0.0.1",
    idleTimeout: 0,
    async fetch(req, srv) {
      const targets = opts.targets();
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      for (const h of hopByHop) headers.delete(h);
      const peer = srv.requestIP(req)?.address;
      const forwarded = headers.get("x-forwarded-for");
      if (peer) headers.set("x-forwarded-for", forwarded ? `${forwarded}, ${peer}` : peer);
      headers.set("x-forwarded-host", url.host);
      headers.set("x-forwarded-proto", url.protocol.replace(":", ""));
      // The body is read once, so a retry on another gateway can send it again.
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      for (let tried = 0; tried < targets.length; tried++) {
        const target = targets[next++ % targets.length]!;
        try {
          const res = await fetch(target + url.pathname + url.search, { method: req.method, headers, body, redirect: "manual" });
          const out = new Headers(res.headers);
          // fetch has already decoded a compressed body.
          if (out.has("content-encoding")) {
            out.delete("content-encoding");
            out.delete("content-length");
          }
          return new Response(res.body, { status: res.status, statusText: res.statusText, headers: out });
        } catch (err) {
          if (!isRefused(err)) return Response.json({ error: "bad_gateway", message: "the gateway did not answer" }, { status: 502 });
        }
      }
      return Response.json({ error: "service_unavailable", message: "no gateway is running" }, { status: 503 });
    },
  });
  return { url: `http://${server.hostname}:${server.port}`, stop: async () => void (await server.stop(true)) };
}

function isRefused(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === "ConnectionRefused" || code === "ECONNREFUSED";
}
