// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS) with the spec's 10 s answer
// deadline, and two webhook receivers on 127.0.0.1: one that holds every request, one that answers at once. A
// receiver that hangs holds only its own endpoint's slots; deliveries to other endpoints keep flowing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually, hang, startTrove, startWebhookReceiver, type TestTrove } from "@trove/testing";
import { perEndpoint } from "../webhook-job.ts";

const cap = perEndpoint;

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05" });
});
afterAll(() => trove.stop());

const api = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => (await trove.api(path, init)).json();

test("a receiver that hangs never holds up deliveries to another endpoint", async () => {
  const slow = startWebhookReceiver(() => hang());
  const fast = startWebhookReceiver();
  try {
    const s = (await api("/api/webhooks", { method: "POST", json: { url: slow.url } })).endpoint.id;
    const f = (await api("/api/webhooks", { method: "POST", json: { url: fast.url } })).endpoint.id;
    for (let i = 0; i < cap + 10; i++) await api(`/api/webhooks/${s}/test`, { method: "POST" });
    // The slow endpoint gets its share of attempts at once (the per-endpoint cap), and they hang.
    await eventually(() => slow.hanging === cap);
    for (let i = 0; i < 20; i++) await api(`/api/webhooks/${f}/test`, { method: "POST" });
    await eventually(() => fast.received.length === 20);
    // All of that happened while the slow receiver still held its requests, and no more were sent to it.
    expect(slow.hanging).toBe(cap);
    expect(slow.received.length).toBe(cap);
    // Each success is recorded just after the receiver has answered: wait for the records, not only the requests.
    await eventually(async () => (await api(`/api/webhooks/${f}/deliveries?status=succeeded`)).count === 20);
    expect(slow.received.length).toBe(cap);

    slow.answer = () => new Response("ok");
    slow.release();
    await eventually(async () => (await api(`/api/webhooks/${s}/deliveries?status=succeeded`)).count === cap + 10, 15_000);
    expect(slow.received.length).toBe(cap + 10);
  } finally {
    slow.stop();
    fast.stop();
  }
}, 60_000);
