// A TCP proxy on 127.0.0.1 between a client and a server of the test, to break the connection in the two ways a
// network does: cut (every connection closed, new ones refused: the client knows and reconnects) and silent (the
// connections stay open but carry nothing either way: the client believes it is connected until its own pings
// time out). restore() lets traffic through again; connections silenced meanwhile are closed, since bytes were lost.
import { createServer, connect, type Socket } from "node:net";

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections open through the proxy now. */
  readonly connections: number;
  /** Closes every connection and refuses new ones until restore(). */
  cut(): void;
  /** Keeps every connection open but drops what either side sends, until restore(). */
  silence(): void;
  /** Lets traffic through again. */
  restore(): void;
  stop(): Promise<void>;
}

type Mode = "open" | "cut" | "silent";

/** Starts a proxy to `target` (a port on 127.0.0.1, or host and port). */
export async function startTcpProxy(target: number | { host: string; port: number }): Promise<TcpProxy> {
  const { host, port } = typeof target === "number" ? { host: "127.0.0.1", port: target } : target;
  let mode: Mode = "open";
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    if (mode === "cut") {
      client.destroy();
      return;
    }
    const upstream = connect({ host, port });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk) => void (mode === "open" && upstream.write(chunk)));
    upstream.on("data", (chunk) => void (mode === "open" && client.write(chunk)));
    for (const s of pair) {
      s.on("error", close);
      s.on("close", close);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const closeAll = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return pairs.size;
    },
    cut() {
      mode = "cut";
      closeAll();
    },
    silence() {
      mode = "silent";
    },
    restore() {
      if (mode === "silent") closeAll();
      mode = "open";
    },
    stop: async () => {
      mode = "cut";
      closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
