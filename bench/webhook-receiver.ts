// The loopback receiver of `bench/webhooks.ts`, in its own process so it does not share Trove's event loop: verifies
// every delivery with the standardwebhooks library on the raw body and counts them. POST /secrets sets the secret
// per path; GET /stats answers {verified, rejected}. Prints its port on the first line of stdout.
import { Webhook } from "standardwebhooks";

const verifiers = new Map<string, Webhook>();
let verified = 0;
let rejected = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/secrets") {
      for (const [p, s] of Object.entries((await req.json()) as Record<string, string>)) verifiers.set(p, new Webhook(s));
      return new Response("ok");
    }
    if (path === "/stats") return Response.json({ verified, rejected });
    const body = await req.text();
    try {
      verifiers.get(path)!.verify(body, Object.fromEntries(req.headers));
      verified++;
      return new Response(null, { status: 204 });
    } catch {
      rejected++;
      return new Response("bad signature", { status: 400 });
    }
  },
});
console.log(server.port);
