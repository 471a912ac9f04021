// Bodies the contract does not expect, and nesting measured before anything else reads a body. A route that takes
// no body (pausing, resuming and removing a source, a webhook's test delivery, every DELETE) refuses one at once:
// a deeply nested body there was passed over the bus and answered 500 after the process had stringified it.
// Real: a test Trove on the test stack (PGlite + in-process bus, or PostgreSQL + NATS), driven over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

const json = { "content-type": "application/json" };
const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const post = (path: string, body?: string, headers: Record<string, string> = json) => trove.api(path, { method: "POST", body, headers });

async function inbox(): Promise<string> {
  const res = await trove.api("/api/sources", { method: "POST", json: { type: "email_inbox" } });
  expect(res.status).toBe(200);
  return (await res.json()).source.id;
}

const sourceStatus = async (id: string) => (await (await trove.api(`/api/sources/${id}`)).json()).source?.status;

describe("a route that takes no body", () => {
  test("refuses a deeply nested body with 400 naming the body, and does nothing (it answered 500)", async () => {
    const source = await inbox();
    const before = await sourceStatus(source);
    const webhook = (await (await trove.api("/api/webhooks", { method: "POST", json: { url: "http://127.0.0.1:9/no-body" } })).json()).endpoint.id;
    for (const path of [`/api/sources/${source}/pause`, `/api/sources/${source}/resume`, `/api/sources/${source}/delete`, `/api/webhooks/${webhook}/test`]) {
      const res = await post(path, `{"a": ${deep(200_000)}}`);
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 400,
        body: { error: "validation_failed", message: "this route takes no request body", fields: { body: "this route takes no body" } },
      });
    }
    expect(await sourceStatus(source)).toBe(before);
    const deliveries = await (await trove.api(`/api/webhooks/${webhook}/deliveries`)).json();
    expect(deliveries.deliveries).toEqual([]);
    const removed = await trove.api(`/api/webhooks/${webhook}`, { method: "DELETE", body: `{"a": ${deep(200_000)}}`, headers: json });
    expect(removed.status).toBe(400);
    expect((await trove.api(`/api/webhooks/${webhook}`)).status).toBe(200);
  });

  test("refuses any other body too, JSON or not, chunked or not", async () => {
    const source = await inbox();
    const chunked = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (let i = 0; i < 100; i++) ctrl.enqueue(new TextEncoder().encode("x".repeat(1000)));
        ctrl.close();
      },
    });
    for (const [body, headers] of [
      ['{"reason": "because"}', json],
      ["reason=because", { "content-type": "application/x-www-form-urlencoded" }],
      ["because", { "content-type": "text/plain" }],
      [chunked, { "content-type": "text/plain" }],
    ] as const) {
      const res = await trove.api(`/api/sources/${source}/pause`, { method: "POST", body, headers });
      expect({ status: res.status, error: (await res.json()).error }).toEqual({ status: 400, error: "validation_failed" });
    }
    expect(await sourceStatus(source)).not.toBe("paused");
  });

  test("takes no body, an empty one, or an empty JSON object (what clients send with every POST)", async () => {
    const source = await inbox();
    const pause = await post(`/api/sources/${source}/pause`, "{ }");
    expect(pause.status).toBe(200);
    expect(await sourceStatus(source)).toBe("paused");
    expect((await post(`/api/sources/${source}/resume`, "", {})).status).toBe(200);
    expect((await post(`/api/sources/${source}/pause`, "")).status).toBe(200);
    expect((await post(`/api/sources/${source}/delete`, "{}")).status).toBe(200);
  });
});

describe("nesting is measured before the body is read any further", () => {
  test("before parsing: a body too deep and cut short answers the depth, not invalid_json", async () => {
    const res = await post("/api/items/archive", `{"ids": ${"[".repeat(100_000)}`);
    expect(res.status).toBe(400);
    expect((await res.json()).fields).toEqual({ ids: "nested more than 32 levels deep" });
    // Brackets inside strings are text: after an escaped quote, and up to a quote after an escaped backslash.
    const name = `"${"[".repeat(40)}\\`;
    const created = await post("/api/collections", JSON.stringify({ name }));
    expect(created.status).toBe(200);
    expect((await created.json()).collection.name).toBe(name);
  });

  test("before the credential: a deep body without a key answers 400, never reaching anything that would read it", async () => {
    const res = await trove.api("/api/items/archive", { method: "POST", key: null, body: `{"ids": ${deep(3_000_000)}}`, headers: json });
    expect(res.status).toBe(400);
    expect((await res.json()).fields).toEqual({ ids: "nested more than 32 levels deep" });
  });
});
