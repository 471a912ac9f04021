// Request bodies over TROVE_MAX_BODY_BYTES answer 413 payload_too_large as JSON with Trove's headers, whether the
// length is declared or the body is chunked. Real: a test Trove on the test stack; raw requests over a local socket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { aliceKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_MAX_BODY_BYTES: "4096" });
});
afterAll(() => trove.stop());

/** A body sent in chunks, with no declared length. */
const chunked = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(ctrl) {
      for (const p of parts) ctrl.enqueue(new TextEncoder().encode(p));
      ctrl.close();
    },
  });

/** Sends raw request bytes and answers the status line and the body of the response. */
async function raw(head: string, body: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(trove.url);
  const received: Buffer[] = [];
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(port),
    socket: {
      data: (_s, data) => void received.push(Buffer.from(data)),
      close: () => done.resolve(),
      error: () => done.resolve(),
    },
  });
  socket.write(head + body);
  await done.promise;
  const text = Buffer.concat(received).toString();
  const [headers = "", rest = ""] = text.split("\r\n\r\n");
  return { status: Number(headers.split(" ")[1]), headers: headers.toLowerCase(), body: rest };
}

describe("request body limits", () => {
  test("a chunked body over the limit answers 413 payload_too_large as JSON", async () => {
    const res = await trove.api("/api/ingest", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunked(['{"url":"https://chunked.test/","html":"', "x".repeat(3000), "y".repeat(3000), '"}']),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.json()).toMatchObject({ error: "payload_too_large", limit: 4096 });
    expect((await (await trove.api("/api/items?source=chunked.test")).json()).count).toBe(0);
  });

  test("a chunked body under the limit is read and saved", async () => {
    const res = await trove.api("/api/ingest", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunked(['{"url":"https://chunked-ok.test/",', '"html":"<p>small enough to keep</p>"}']),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).ok).toBe(true);
  });

  test("a declared length far over the limit is answered with JSON before the body is read", async () => {
    const head = `POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${aliceKey}\r\nContent-Type: application/json\r\nContent-Length: 500000000\r\nConnection: close\r\n\r\n`;
    const res = await raw(head, '{"url":"https://declared.test/"');
    expect(res.status).toBe(413);
    expect(res.headers).toContain("x-content-type-options: nosniff");
    expect(res.headers).toContain("application/json");
    expect(res.body).toContain('"error":"payload_too_large"');
  });

  test("malformed JSON read through the counter still answers 400 invalid_json", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", headers: { "content-type": "application/json" }, body: chunked(['{"url": ', '"https://a.test/"']) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid_json");
  });
});
