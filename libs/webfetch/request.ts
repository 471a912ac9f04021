// One guarded fetch: hops (each through the guard), manual redirects, deadlines, body.
import http from "node:http";
import type { ClientRequest, IncomingMessage } from "node:http";
import https from "node:https";
import { addressPolicy } from "./address.ts";
import type { AddressPolicy } from "./address.ts";
import { ACCEPT_ENCODING, readBody } from "./body.ts";
import { parseContentType } from "./charset.ts";
import { FetchError } from "./errors.ts";
import { checkAddress, guardedLookup, systemResolver } from "./guard.ts";
import type { Resolver } from "./guard.ts";
import type { FetchOptions, FetchResult } from "./types.ts";
import { literalIp, parseTarget, socketHost } from "./url.ts";

export const DEFAULT_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Trove/0.1";

export const DEFAULTS = {
  connectTimeoutMs: 5_000,
  timeoutMs: 20_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
} as const;

/** Seams for tests only; production code calls guardedFetch/fetchPage from index.ts. */
export interface Internals {
  /** Replaces addressPolicy(opts.allowPrivate), e.g. to allow 127.0.0.1 but refuse 127.0.0.2. */
  policy?: AddressPolicy;
  /** Replaces the system resolver, so tests never ask real DNS. */
  resolver?: Resolver;
  /** Extra CA for a test's self-signed https server. */
  ca?: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA", "ENODATA", "ESERVFAIL", "ENONAME"]);

/** The total deadline and the caller's signal, as one signal plus the error to report. */
class Deadline {
  private readonly ctrl = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private kind: "timeout" | "aborted" = "timeout";
  readonly signal = this.ctrl.signal;

  constructor(
    private readonly ms: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.stop("timeout"), ms);
    if (outer?.aborted) this.onOuter();
    else outer?.addEventListener("abort", this.onOuter, { once: true });
  }

  private readonly onOuter = () => {
    const reason = this.outer?.reason as { name?: string } | undefined;
    this.stop(reason?.name === "TimeoutError" ? "timeout" : "aborted");
  };

  private stop(kind: "timeout" | "aborted") {
    if (this.ctrl.signal.aborted) return;
    this.kind = kind;
    this.ctrl.abort();
  }

  error(url: string): FetchError {
    if (this.kind === "aborted") return new FetchError("network", "aborted by the caller", url, { cause: this.outer?.reason });
    return new FetchError("timeout", `not finished within ${this.ms} ms`, url);
  }

  dispose() {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuter);
  }
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

interface Context {
  policy: AddressPolicy;
  resolver: Resolver;
  connectTimeoutMs: number;
  deadline: Deadline;
  ca: string | undefined;
}

interface Exchange {
  req: ClientRequest;
  res: IncomingMessage;
}

export async function fetchWith(input: string, opts: FetchOptions, internals: Internals = {}): Promise<FetchResult> {
  let url = parseTarget(input);
  const maxRedirects = opts.maxRedirects ?? DEFAULTS.maxRedirects;
  const maxBytes = opts.maxBytes ?? DEFAULTS.maxBytes;
  const deadline = new Deadline(opts.timeoutMs ?? DEFAULTS.timeoutMs, opts.signal);
  const ctx: Context = {
    policy: internals.policy ?? addressPolicy(opts.allowPrivate),
    resolver: internals.resolver ?? opts.resolver ?? systemResolver,
    connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    deadline,
    ca: internals.ca,
  };
  let method = (opts.method ?? "GET").toUpperCase();
  let body = typeof opts.body === "string" ? new TextEncoder().encode(opts.body) : opts.body;
  let headers = requestHeaders(opts);
  const redirects: string[] = [];

  try {
    for (;;) {
      const { req, res } = await send({ url, method, headers, body }, ctx);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        hangUp(req, res);
        if (redirects.length >= maxRedirects) {
          throw new FetchError("too_many_redirects", `more than ${maxRedirects} redirects`, url.href, { status });
        }
        const next = parseTarget(location, url);
        if (!next.hash && url.hash) next.hash = url.hash; // RFC 9110 15.4: the fragment carries over
        redirects.push(url.href);
        // Browser semantics: 303 (and 301/302 after a POST) continue as a bodiless GET.
        if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          headers = without(headers, ["content-type", "content-encoding", "content-language"]);
        }
        // Never hand one site's credentials to another.
        if (next.origin !== url.origin) headers = without(headers, ["authorization", "cookie", "proxy-authorization"]);
        url = next;
        continue;
      }

      const { bytes, truncated } = await untilDeadline(
        readBody(res, maxBytes, () => hangUp(req, res)),
        ctx.deadline,
        url.href,
        () => hangUp(req, res),
      ).catch((err: unknown) => {
        throw err instanceof FetchError ? err : new FetchError("network", `reading the body failed: ${(err as Error).message}`, url.href, { cause: err });
      });
      const flat = flatHeaders(res);
      const { mime, charset } = parseContentType(flat["content-type"]);
      return { url: url.href, status, headers: flat, contentType: mime, charset, bytes, truncated, redirects };
    }
  } finally {
    deadline.dispose();
  }
}

function requestHeaders(opts: FetchOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": opts.userAgent ?? DEFAULT_USER_AGENT,
    accept: opts.accept ?? "*/*",
    "accept-encoding": ACCEPT_ENCODING,
  };
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
  // Framing and routing are ours to set: a caller's value could desync the request or misroute it.
  return without(headers, ["host", "content-length", "transfer-encoding", "connection"]);
}

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  const out = { ...headers };
  for (const n of names) delete out[n];
  return out;
}

function hangUp(req: ClientRequest, res: IncomingMessage) {
  res.destroy();
  req.destroy();
}

/** One request/response exchange, through the guard, up to the response headers. */
function send(hop: Hop, ctx: Context): Promise<Exchange> {
  const { url } = hop;
  return new Promise<Exchange>((resolve, reject) => {
    // Literal IPs never reach `lookup`, so they are judged here.
    const ip = literalIp(url);
    try {
      if (ip) checkAddress(ctx.policy, ip, ip, url.href);
    } catch (err) {
      return reject(err);
    }
    if (ctx.deadline.signal.aborted) return reject(ctx.deadline.error(url.href));

    const tls = url.protocol === "https:";
    let settled = false;
    let established = false;
    let guardFailure: FetchError | null = null;
    const headers: Record<string, string> = { ...hop.headers, host: url.host, connection: "close" };
    if (hop.body !== undefined) headers["content-length"] = String(hop.body.byteLength);

    const options: https.RequestOptions = {
      protocol: url.protocol,
      hostname: socketHost(url),
      port: url.port || (tls ? 443 : 80),
      path: url.pathname + url.search,
      method: hop.method,
      headers,
      // A fresh connection per hop: a pooled socket would skip `lookup`, and with it the guard.
      agent: false,
      lookup: guardedLookup(ctx.policy, ctx.resolver, url.href, (err) => (guardFailure = err)),
      ...(tls && ctx.ca ? { ca: ctx.ca } : {}),
    };
    const req = (tls ? https : http).request(options);

    const cleanup = () => {
      clearTimeout(connectTimer);
      ctx.deadline.signal.removeEventListener("abort", onDeadline);
    };
    const fail = (err: FetchError) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      reject(err);
    };
    const onDeadline = () => fail(ctx.deadline.error(url.href));
    ctx.deadline.signal.addEventListener("abort", onDeadline, { once: true });
    const connectTimer = setTimeout(
      () => fail(new FetchError("timeout", `no connection within ${ctx.connectTimeoutMs} ms`, url.href)),
      ctx.connectTimeoutMs,
    );

    req.on("socket", (socket) => {
      socket.once("connect", () => {
        // Belt and braces: whatever route led here, the peer itself must be allowed.
        const peer = socket.remoteAddress;
        if (peer) {
          try {
            checkAddress(ctx.policy, peer, socketHost(url), url.href);
          } catch (err) {
            guardFailure = err as FetchError;
            fail(guardFailure);
            return;
          }
        }
        if (!tls) {
          established = true;
          clearTimeout(connectTimer);
        }
      });
      if (tls) {
        socket.once("secureConnect", () => {
          established = true;
          clearTimeout(connectTimer);
        });
      }
    });
    req.on("response", (res) => {
      if (settled) return void res.destroy();
      settled = true;
      cleanup();
      resolve({ req, res });
    });
    req.on("error", (err) => fail(guardFailure ?? classify(err, established, url.href)));
    req.end(hop.body);
  });
}

function classify(err: Error, established: boolean, url: string): FetchError {
  if (err instanceof FetchError) return err;
  const code = (err as { code?: string }).code ?? "";
  if (DNS_CODES.has(code)) return new FetchError("dns", `cannot resolve: ${err.message}`, url, { cause: err });
  if (!established) return new FetchError("connect", `cannot connect: ${err.message}`, url, { cause: err });
  return new FetchError("network", err.message, url, { cause: err });
}

/** Races `work` against the deadline; on expiry `onExpire` hangs up and the deadline's error wins. */
function untilDeadline<T>(work: Promise<T>, deadline: Deadline, url: string, onExpire: () => void): Promise<T> {
  if (deadline.signal.aborted) {
    onExpire();
    work.catch(() => {});
    return Promise.reject(deadline.error(url));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      onExpire();
      reject(deadline.error(url));
    };
    deadline.signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        deadline.signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        deadline.signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}
