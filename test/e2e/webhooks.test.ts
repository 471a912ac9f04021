// End to end over HTTP against real processes: NATS with JetStream, PostgreSQL, every service its own process
// (`bun run services/<name>/main.ts`), and a webhook receiver on 127.0.0.1 verifying every delivery with the
// standardwebhooks library. The delivery process is killed (SIGKILL) in the middle of a burst of saves and started
// again: every logged event still reaches the receiver, signed, at least once, and makes one delivery.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { aliceKey, articleHtml, backingServices, eventually, launchDistributed, startWebhookReceiver, waitForHealth, type Backing, type Topology } from "@trove/testing";

const backing = await backingServices();

const call = async (url: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("authorization", `Bearer ${aliceKey}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
};

if ("skip" in backing) {
  console.log(`SKIPPED webhook end-to-end suite: ${backing.skip}`);
  describe.skip(`webhooks in the distributed topology (skipped: ${backing.skip})`, () => test("every webhook end-to-end test", () => {}));
} else {
  const b: Backing = backing;
  let topo: Topology;
  beforeAll(async () => {
    // Short retries, a 2 s answer deadline, a 5 s job lease so a killed process's attempts are taken over soon (the
    // events it had pulled come back after the fan-out's 30 s acknowledgement window), and no disabling: every
    // first attempt below fails on purpose.
    topo = await launchDistributed(b, {
      TROVE_WEBHOOK_RETRY_DELAYS: "0.5,0.5,1,1",
      TROVE_WEBHOOK_TIMEOUT_MS: "2000",
      TROVE_JOB_LEASE_MS: "5000",
      TROVE_WEBHOOK_DISABLE_AFTER: "100000",
    });
  });
  afterAll(async () => {
    await topo?.stop();
    await b.stop();
  });

  describe(`webhooks in the distributed topology (${b.how})`, () => {
    test("the delivery process killed in a burst: after a restart every event is delivered, signed, at least once", async () => {
      // Each delivery's first attempt fails, so retries are pending in the database when the process dies.
      const tried = new Set<string>();
      const delivered = new Map<string, string>(); // webhook-id -> data.eventId, for each 2xx answered
      let secret = "";
      const receiver = startWebhookReceiver((got) => {
        const id = got.headers["webhook-id"]!;
        const body = new Webhook(secret).verify(got.body, got.headers) as { data: { eventId: string } };
        if (!tried.has(id)) {
          tried.add(id);
          return new Response("try again", { status: 500 });
        }
        delivered.set(id, body.data.eventId);
        return new Response(null, { status: 204 });
      });
      try {
        const created = await call(topo.url, "/api/webhooks", { method: "POST", json: { url: `${receiver.url}/trove`, eventTypes: ["item.created"] } });
        expect(created.status).toBe(200);
        secret = created.body.secret;
        const endpointId = created.body.endpoint.id;

        const saved: string[] = [];
        const writers = Array.from({ length: 3 }, async (_, w) => {
          for (let i = 0; i < 20; i++) {
            const r = await call(topo.url, "/api/ingest", { method: "POST", json: { url: `https://burst.example.invalid/${w}/${i}`, html: articleHtml } });
            if (r.status === 200) saved.push(r.body.id);
          }
        });
        await eventually(() => tried.size >= 5, 30_000);
        const delivery = topo.procs.get("delivery")!;
        delivery.kill("SIGKILL");
        await delivery.exited;
        await Promise.all(writers);
        topo.restart("delivery");
        await waitForHealth(topo.url, "ok");

        const events = (await call(topo.url, "/api/items/changes?limit=1000")).body.events.filter((e: any) => e.type === "item.created");
        expect(events.length).toBe(60);
        expect(new Set(events.map((e: any) => e.itemId))).toEqual(new Set(saved));
        const wanted = new Set<string>(events.map((e: any) => e.id));
        await eventually(() => [...wanted].every((id) => [...delivered.values()].includes(id)), 90_000);

        // One delivery per event, however often the bus handed the event over.
        const list = (await call(topo.url, `/api/webhooks/${endpointId}/deliveries?limit=1000`)).body;
        expect(list.count).toBe(60);
        expect(new Set(list.deliveries.map((d: any) => d.eventId))).toEqual(wanted);
        await eventually(async () => (await call(topo.url, `/api/webhooks/${endpointId}/deliveries?status=succeeded&limit=1000`)).body.count === 60, 30_000);
      } finally {
        receiver.stop();
      }
    }, 180_000);
  });
}
