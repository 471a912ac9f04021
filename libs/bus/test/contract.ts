// One contract for both bus implementations: each test file runs it against a real bus. The event stream's part
// runs where there is one (NATS).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "@trove/errors";
import { defaultMaxInFlight, type Bus, type EventDelivery, type EventStream } from "../bus.ts";

const waitFor = async (check: () => boolean, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
};

/** The AppError a request fails with (the test fails if it succeeds). */
const failure = (p: Promise<unknown>): Promise<AppError> =>
  p.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (e: unknown) => e as AppError,
  );

/**
 * `openPeer` gives the bus another process of the same installation would have: for NATS a second connection
 * with the same prefix; in-process there is one bus per process, so the same one. `events`: the bus has an event
 * stream (JetStream).
 */
export function busContract(name: string, open: () => Promise<Bus>, openPeer: (bus: Bus) => Promise<Bus>, opts: { events: boolean }) {
  describe(`bus contract: ${name}`, () => {
    let bus: Bus;
    let peer: Bus;
    /** The bus's event stream, where it has one (`opts.events`: NATS). */
    const stream = () => bus as Bus & EventStream;
    const subs: { stop(): Promise<void> }[] = [];
    beforeAll(async () => {
      bus = await open();
      peer = await openPeer(bus);
    });
    afterAll(async () => {
      for (const s of subs) await s.stop();
      if (peer !== bus) await peer.close();
      await bus.close();
    });

    test("request-reply carries payload and headers", async () => {
      subs.push(bus.serve("echo", (payload, meta) => ({ payload, reqId: meta.headers["trove-request-id"] })));
      const reply = await bus.request("echo", { a: 1, nested: ["x"] }, { headers: { "trove-request-id": "r1" } });
      expect(reply).toEqual({ payload: { a: 1, nested: ["x"] }, reqId: "r1" });
    });

    test("thrown AppError crosses as its stable code with details", async () => {
      subs.push(
        bus.serve("fails", () => {
          throw new AppError("quota_reached", "limit", { linkLimit: 3 });
        }),
      );
      const err = await failure(bus.request("fails", {}));
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe("quota_reached");
      expect(err.details).toEqual({ linkLimit: 3 });
    });

    test("async handler failure becomes an internal_error reply without internals", async () => {
      subs.push(
        bus.serve("crashes", async () => {
          await Bun.sleep(1);
          throw new TypeError("secret internals at /srv/x.ts:12");
        }),
      );
      const err = await failure(bus.request("crashes", {}));
      expect(err.code).toBe("internal_error");
      expect(err.message).not.toContain("secret");
    });

    test("a request past its deadline fails with timeout", async () => {
      // The handler answers only after the test has its outcome, so only the deadline can end the request.
      const answer = Promise.withResolvers<void>();
      const reached = Promise.withResolvers<void>();
      subs.push(
        bus.serve("slow", async () => {
          reached.resolve();
          await answer.promise;
          return "too late";
        }),
      );
      const err = await failure(bus.request("slow", {}, { timeoutMs: 100 }));
      expect(err.code).toBe("timeout");
      await reached.promise; // the request was delivered; the reply was what never came
      answer.resolve();
    });

    test("a subject nobody serves fails with service_unavailable", async () => {
      const err = await failure(bus.request("nobody.home", {}, { timeoutMs: 1_000 }));
      expect(err.code).toBe("service_unavailable");
    });

    test("payloads over 1 MB travel both ways", async () => {
      subs.push(bus.serve("big", (p) => ({ back: (p as { s: string }).s + "!".repeat(1_500_000) })));
      const s = "x".repeat(2_000_000);
      const reply = (await bus.request("big", { s })) as { back: string };
      expect(reply.back.length).toBe(3_500_000);
      expect(reply.back.startsWith("xxx")).toBe(true);
      expect(reply.back.endsWith("!!!")).toBe(true);
    });

    test("payloads over 1 MB that do not compress below it travel both ways", async () => {
      // Random bytes as base64: zstd cannot bring 2.7 MB under a message, so NATS carries it through the object store.
      const noise = Buffer.from(crypto.getRandomValues(new Uint8Array(65_536))).toString("base64");
      const s = Array.from({ length: 32 }, (_, i) => Buffer.from(crypto.getRandomValues(new Uint8Array(65_536))).toString("base64") + i).join("");
      subs.push(bus.serve("noise", (p) => ({ back: (p as { s: string }).s + noise })));
      const reply = (await bus.request("noise", { s })) as { back: string };
      expect(reply.back).toBe(s + noise);
    });

    if (opts.events) test("published events reach a durable consumer once per id", async () => {
      const got: EventDelivery[] = [];
      const id1 = crypto.randomUUID();
      expect((await stream().publish("item.created", { n: 1 }, { id: id1 })).duplicate).toBe(false);
      expect((await stream().publish("item.created", { n: 1 }, { id: id1 })).duplicate).toBe(true);
      await stream().publish("item.updated", { n: 2 }, { id: crypto.randomUUID() });
      await stream().publish("note.updated", { n: 3 }, { id: crypto.randomUUID() });
      // Published last, delivered last: once it is in, everything before it has been delivered.
      await stream().publish("item.deleted", { n: "last" }, { id: crypto.randomUUID() });
      subs.push(await stream().consume({ durable: "contract-a", filter: "item.>" }, async (e) => void got.push(e)));
      await waitFor(() => got.some((e) => e.subject === "item.deleted"));
      expect(got.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: "last" }]);
      expect(got[0]!.id).toBe(id1);
      expect(got[0]!.subject).toBe("item.created");
      expect(got[0]!.attempt).toBe(1);
    });

    if (opts.events) test("a failed event is redelivered until it is acknowledged", async () => {
      const deliveries: string[] = [];
      subs.push(
        await stream().consume({ durable: "contract-b", filter: "retry.*", retryDelaysMs: [50], maxDeliver: 5 }, async (e) => {
          deliveries.push(`${e.subject}#${e.attempt}`);
          const failures = e.subject === "retry.one" ? 2 : 1;
          if (e.attempt <= failures) throw new Error("not yet");
        }),
      );
      await stream().publish("retry.one", { ok: true }, { id: crypto.randomUUID() });
      await waitFor(() => deliveries.includes("retry.one#3"));
      // A later event fails once, with the same retry delay: its redelivery comes after any redelivery of
      // retry.one that a missing acknowledgement would have caused, so none can still be on its way.
      await stream().publish("retry.two", { ok: true }, { id: crypto.randomUUID() });
      await waitFor(() => deliveries.includes("retry.two#2"));
      expect(deliveries).toEqual(["retry.one#1", "retry.one#2", "retry.one#3", "retry.two#1", "retry.two#2"]);
    });

    if (opts.events) test("a durable consumer resumes where it stopped", async () => {
      const first: unknown[] = [];
      const sub = await stream().consume({ durable: "contract-c", filter: "resume.*" }, async (e) => void first.push(e.data));
      await stream().publish("resume.x", 1, { id: crypto.randomUUID() });
      await waitFor(() => first.length === 1);
      await sub.stop();
      await stream().publish("resume.x", 2, { id: crypto.randomUUID() });
      const second: unknown[] = [];
      subs.push(await stream().consume({ durable: "contract-c", filter: "resume.*" }, async (e) => void second.push(e.data)));
      await waitFor(() => second.length === 1);
      expect(second).toEqual([2]);
      expect(first).toEqual([1]); // the stopped subscription received nothing more
    });

    if (opts.events) test("a consumer runs at most maxInFlight deliveries at once, and in time all of them", async () => {
      // Every handler waits for the gate, so what has started and not finished is exactly what is in flight.
      const gate = Promise.withResolvers<void>();
      let running = 0;
      let most = 0;
      const handled = new Set<string>();
      for (let i = 0; i < 100; i++) await stream().publish("bounded.e", { i }, { id: crypto.randomUUID() });
      subs.push(
        await stream().consume({ durable: "contract-d", filter: "bounded.*" }, async (e) => {
          most = Math.max(most, ++running);
          await gate.promise;
          running--;
          handled.add(e.id);
        }),
      );
      await waitFor(() => running >= defaultMaxInFlight);
      gate.resolve();
      await waitFor(() => handled.size === 100);
      expect(most).toBe(defaultMaxInFlight);
    });

    if (opts.events) test("an event waiting for its redelivery leaves its place to the events behind it", async () => {
      const seen: string[] = [];
      const gate = Promise.withResolvers<void>();
      subs.push(
        // One place; the failed event's redelivery is a minute away, far after the test has its answer.
        await stream().consume({ durable: "contract-e", filter: "place.*", maxInFlight: 1, retryDelaysMs: [60_000] }, async (e) => {
          seen.push(`${e.subject}#${e.attempt}`);
          if (e.subject === "place.first") throw new Error("fails, retried later");
          await gate.promise;
        }),
      );
      await stream().publish("place.first", {}, { id: crypto.randomUUID() });
      await stream().publish("place.second", {}, { id: crypto.randomUUID() });
      await waitFor(() => seen.includes("place.second#1"));
      gate.resolve();
      expect(seen).toEqual(["place.first#1", "place.second#1"]);
    });

    test("a broadcast reaches every listener in every process, and each listener once", async () => {
      const heard: string[] = [];
      const hear = (who: string) => (data: unknown, subject: string) => void heard.push(`${who} ${subject} ${JSON.stringify(data)}`);
      subs.push(bus.listen("keys.revoked", hear("a")), bus.listen("keys.revoked", hear("b")), peer.listen("keys.revoked", hear("peer")));
      subs.push(peer.listen("keys.*", hear("wildcard")), bus.listen("other", hear("other")));
      // A served subject of the same name is a different thing: broadcasts never reach request handlers.
      let served = 0;
      subs.push(bus.serve("keys.revoked", () => void served++));
      // A listener that throws does not stop the others, nor the sender.
      subs.push(bus.listen("keys.revoked", () => {
        throw new Error("listener failed on purpose");
      }));
      // healthy() is a round trip to the server (NATS: flush), so the peer's subscriptions are in place.
      await peer.healthy();
      await bus.broadcast("keys.revoked", { keyId: "k1" });
      await bus.broadcast("keys.revoked", { keyId: "k2" });
      await waitFor(() => heard.length === 8);
      expect(heard.sort()).toEqual(
        [
          'a keys.revoked {"keyId":"k1"}',
          'a keys.revoked {"keyId":"k2"}',
          'b keys.revoked {"keyId":"k1"}',
          'b keys.revoked {"keyId":"k2"}',
          'peer keys.revoked {"keyId":"k1"}',
          'peer keys.revoked {"keyId":"k2"}',
          'wildcard keys.revoked {"keyId":"k1"}',
          'wildcard keys.revoked {"keyId":"k2"}',
        ].sort(),
      );
      expect(served).toBe(0);
    });

    test("a stopped listener hears nothing more", async () => {
      const heard: unknown[] = [];
      const sub = peer.listen("stopped.news", (d) => void heard.push(d));
      const last: unknown[] = [];
      subs.push(peer.listen("stopped.last", (d) => void last.push(d)));
      await sub.stop();
      await peer.healthy();
      await bus.broadcast("stopped.news", 1);
      // Sent after, on the same connection: once it is in, the first would have been too.
      await bus.broadcast("stopped.last", 2);
      await waitFor(() => last.length === 1);
      expect(heard).toEqual([]);
    });

    test("a stopping process takes no more requests from another, and still answers its own until each subject stops", async () => {
      const stopping = await open();
      const other = await openPeer(stopping);
      const sub = stopping.serve("stop-serving", () => ({ answered: "here" }));
      // The subscription reaches the server before the other connection asks (on NATS they are two connections).
      await stopping.healthy();
      try {
        expect(await other.request("stop-serving", {})).toEqual({ answered: "here" });
        await stopping.stopServing();
        expect(await stopping.request("stop-serving", {}, { timeoutMs: 5_000 })).toEqual({ answered: "here" });
        // Another process's request finds no one here (on NATS another replica would take it).
        if (other !== stopping) expect((await failure(other.request("stop-serving", {}, { timeoutMs: 5_000 }))).code).toBe("service_unavailable");
        await sub.stop();
        expect((await failure(stopping.request("stop-serving", {}, { timeoutMs: 5_000 }))).code).toBe("service_unavailable");
      } finally {
        await sub.stop();
        if (other !== stopping) await other.close();
        await stopping.close();
      }
    });

    test("reports itself healthy while open", async () => {
      expect(await bus.healthy()).toBe(true);
    });
  });
}
