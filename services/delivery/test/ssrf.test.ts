// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS) with private networks NOT
// allowed (TROVE_ALLOW_PRIVATE_NETWORK=0), names resolved by the test resolver (localhost is loopback, every other
// name fails): webhook URLs pass the same SSRF guard as page fetches, when saved and again on every attempt.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually, loopbackOrigins, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_ALLOW_PRIVATE_NETWORK: "0", TROVE_WEBHOOK_RETRY_DELAYS: "0.05" });
});
afterAll(() => trove.stop());

const loopbackSpellings = loopbackOrigins.map((o) => (o.startsWith("https://169.254") ? `${o}/latest/meta-data` : `${o}/hook`));

test("loopback, in every spelling, is refused when an endpoint is saved", async () => {
  for (const url of loopbackSpellings) {
    const res = await trove.api("/api/webhooks", { method: "POST", json: { url } });
    const body = await res.json();
    expect({ url, status: res.status, error: body.error }).toEqual({ url, status: 400, error: "url_not_allowed" });
    expect(body.fields.url).toBeString();
  }
  expect((await (await trove.api("/api/webhooks")).json()).count).toBe(0);
});

test("and when an endpoint's URL is changed", async () => {
  const created = await trove.api("/api/webhooks", { method: "POST", json: { url: "https://hooks.example.invalid/a" } });
  const id = (await created.json()).endpoint.id;
  for (const url of loopbackSpellings) {
    const res = await trove.api(`/api/webhooks/${id}`, { method: "PATCH", json: { url } });
    expect({ url, status: res.status, error: (await res.json()).error }).toEqual({ url, status: 400, error: "url_not_allowed" });
  }
  expect((await (await trove.api(`/api/webhooks/${id}`)).json()).endpoint.url).toBe("https://hooks.example.invalid/a");
});

test("every attempt resolves the name again: one that does not resolve fails the attempt (dns), nothing is sent", async () => {
  const created = await trove.api("/api/webhooks", { method: "POST", json: { url: "https://hooks.example.invalid/b" } });
  const id = (await created.json()).endpoint.id;
  const before = trove.lookups.filter((h) => h === "hooks.example.invalid").length;
  await trove.api(`/api/webhooks/${id}/test`, { method: "POST" });
  let delivery: any;
  await eventually(async () => {
    delivery = (await (await trove.api(`/api/webhooks/${id}/deliveries`)).json()).deliveries[0];
    return delivery.status === "failed";
  });
  expect(delivery).toMatchObject({ attempts: 2, lastError: "dns", lastStatusCode: null });
  expect(trove.lookups.filter((h) => h === "hooks.example.invalid").length - before).toBe(2);
});
