// Webhook receivers on 127.0.0.1 for tests and benchmarks: each keeps every request as it arrived (the raw body
// bytes as text, lowercase headers), so a test verifies signatures the way a real receiver must. What it answers
// is the test's choice, request by request: a status, a hang until released, or a dropped connection.
import type { Server } from "bun";

export interface ReceivedWebhook {
  /** Lowercase header names, as a plain object (what standardwebhooks' verify takes). */
  headers: Record<string, string>;
  /** The raw body, decoded as UTF-8 without parsing. */
  body: string;
  path: string;
  at: number;
}

/** What a receiver does with one request: answer it, hold it until released, or hang up without an answer. */
export type ReceiverAnswer = Response | { hang: true } | { close: true };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests being held (hang) right now. */
  readonly hanging: number;
  /** Decides each answer; default 204. Change it at any time. */
  answer: (req: ReceivedWebhook, index: number) => ReceiverAnswer | Promise<ReceiverAnswer>;
  /** Answers every held request with `response` (default 200). */
  release(response?: () => Response): void;
  /** Received bodies, parsed. */
  bodies(): any[];
  stop(): void;
}

export const hang = (): ReceiverAnswer => ({ hang: true });
export const hangUp = (): ReceiverAnswer => ({ close: true });

/** Starts a receiver on a free port of 127.0.0.1. */
export function startWebhookReceiver(answer?: WebhookReceiver["answer"]): WebhookReceiver {
  const held: ((r: Response) => void)[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    get hanging() {
      return held.length;
    },
    answer: answer ?? (() => new Response(null, { status: 204 })),
    release(response = () => new Response("ok")) {
      for (const resolve of held.splice(0)) resolve(response());
    },
    bodies() {
      return receiver.received.map((r) => JSON.parse(r.body));
    },
    stop() {
      receiver.release();
      server.stop(true);
    },
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Held requests must stay open as long as the test holds them.
    idleTimeout: 0,
    async fetch(request) {
      const body = new TextDecoder().decode(await request.arrayBuffer());
      const got: ReceivedWebhook = { headers: Object.fromEntries(request.headers), body, path: new URL(request.url).pathname, at: Date.now() };
      const index = receiver.received.push(got) - 1;
      const a = await receiver.answer(got, index);
      if (a instanceof Response) return a;
      if ("close" in a) {
        // No answer at all: a body that fails before its first byte makes Bun reset the connection, headers unsent
        // (thrown as null, so Bun has no error to print).
        return new Response(new ReadableStream({ type: "direct", pull() { throw null; } } as never));
      }
      return new Promise<Response>((resolve) => held.push(resolve));
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}
