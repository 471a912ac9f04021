// The HTTP face of Trove, built from the contract table: validate, one bus request, map the reply.
// Cross-cutting concerns run for every request: request id, API version, body size, rate limit, auth.
import { OptionalKind } from "@sinclair/typebox";
import { Elysia, ValidationError } from "elysia";
import type { BlobStore } from "@trove/blobs";
import type { Bus } from "@trove/bus";
import type { Config } from "@trove/config";
import {
  type Caller,
  type Handler,
  type HandlerContext,
  type Operation,
  type OperationName,
  type RawReply,
  ErrorBody,
  documentVersion,
  operations,
  subjectOf,
} from "@trove/contracts";
import { AppError, toAppError } from "@trove/errors";
import { callerHeader, requestIdHeader, type HandlerTable } from "@trove/host";
import { newRequestId, type Logger } from "@trove/log";
import { httpRequestDuration, secondsSince } from "@trove/metrics";
import { blobBody } from "./blob-reply.ts";
import { isJsonType, parseBody, readLimited, readNoBody, tooLarge } from "./body.ts";
import { docsUi } from "./docs.ts";
import { outOfRangeFields, routeNotFound, validationFailed } from "./errors.ts";
import { checkJsonBody, tooDeep } from "./json-body.ts";
import { openApiDocument, ownCopy, specPath } from "./openapi.ts";
import type { KeyCheck } from "./accounts.service.ts";
import { cookieValue, csrfHeader, sessionCookie, type SessionCheck } from "./sessions.service.ts";
import { isScoped, permits } from "./permissions.ts";
import { clientAddressResolver } from "./client-address.ts";
import { RateLimiter, credentialRateKey, type RateDecision } from "./ratelimit.ts";
import { routeLabeler } from "./route-label.ts";
import { checkText } from "./text-guard.ts";
import { mcpHandler, mcpPath } from "./mcp.ts";
import { webRoutes } from "./web.ts";
import { withHeaders } from "./headers.ts";
import { supportedVersions, versionHeaders } from "./versioning.ts";

/** Resolves a bearer key (sent from address `from`) to its caller, null for an unknown or revoked key, or refuses. */
export interface Authenticator {
  /** `fresh`: the database decides, not a cache. */
  authenticate(key: string, from: string, opts?: { fresh?: boolean }): Promise<KeyCheck>;
  /** Forgets a key another replica revoked (its count carried the revocation mark). */
  forget?(keyId: string): void;
}

/** Resolves a session cookie to its caller and CSRF token, null for an unknown, ended or expired session. */
export interface SessionAuthenticator {
  authenticate(token: string): Promise<SessionCheck | null>;
}

export interface GatewayDeps {
  config: Config;
  bus: Bus;
  accounts: Authenticator;
  /** Browser sessions (the cookie); without it the gateway takes bearer keys only. */
  sessions?: SessionAuthenticator;
  log: Logger;
  /** Operations the gateway answers itself (service "gateway" in the contract). */
  local: HandlerTable<"gateway">;
  /** The store services leave large replies in (the runtime's: shared in either deployment). */
  blobs?: BlobStore;
  /** Requests per credential or address (shared by the replicas on PostgreSQL); a memory one by default. */
  limiter?: RateLimiter;
}

interface RequestState {
  id: string;
  started: number;
  caller: Caller | null;
  /** True when an Authorization header was sent but named no live key. */
  badKey: boolean;
  address: string;
  /** The session cookie sent (live or not), and the live session it named. */
  sessionToken: string | null;
  sessionId: string | null;
}

// Methods that change nothing: a session cookie needs no CSRF token for them.
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

const apiTitle = "Trove API";

// Callers come from the key cache, so the same object recurs: serialise it once.
const callerJson = new WeakMap<Caller, string>();
const headerOf = (c: Caller) => {
  let json = callerJson.get(c);
  if (json === undefined) callerJson.set(c, (json = JSON.stringify(c)));
  return json;
};
const requestIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

export function createGatewayApp(deps: GatewayDeps) {
  const { config, bus, accounts, log } = deps;
  const limiter = deps.limiter ?? new RateLimiter(config.rateLimit);
  const clientAddress = clientAddressResolver(config.trustedProxies);
  const states = new WeakMap<Request, RequestState>();
  // Requests the MCP tools make through this app for an /mcp call (mcp.ts): that call was rate limited already.
  const internal = new WeakSet<Request>();
  const byRoute = new Map<string, { name: OperationName; op: Operation }>();
  for (const [name, op] of Object.entries(operations) as [OperationName, Operation][]) {
    byRoute.set(`${op.method} ${op.path}`, { name, op });
  }
  const routeOf = routeLabeler([...byRoute.values()].map(({ op }) => op));

  // Bun's own body limit is set out of the way: it would answer a bare 413 without JSON or Trove's headers.
  // Declared lengths are refused below before reading; bodies are read with a byte count (body.ts).
  const app = new Elysia({ serve: { maxRequestBodySize: 2 ** 40 } })
    .onRequest(async ({ request, set, server }) => {
      const incoming = request.headers.get("x-request-id");
      const state: RequestState = {
        id: incoming && requestIdPattern.test(incoming) ? incoming : newRequestId(),
        started: performance.now(),
        caller: null,
        badKey: false,
        address: "unknown",
        sessionToken: null,
        sessionId: null,
      };
      states.set(request, state);
      set.headers["x-request-id"] = state.id;
      // Every response, error or not: a browser never second-guesses the content type it was given.
      set.headers["x-content-type-options"] = "nosniff";
      const version = versionHeaders(request.headers.get("service-api-version"));
      Object.assign(set.headers, version ?? versionHeaders(null));
      if (!version) {
        throw new AppError("unsupported_api_version", `unknown Service-API-Version; supported: ${supportedVersions.join(", ")}`, {
          supported: supportedVersions,
        });
      }
      const peer = server?.requestIP(request)?.address;
      const address = peer === undefined ? "unknown" : clientAddress(peer, request.headers);
      state.address = address;
      const path = new URL(request.url).pathname;
      // Signing in and out set the cookie: only the app's own pages may ask, and sign-in only as JSON (a form on
      // another site can post a form, never JSON). Otherwise a page elsewhere could sign a visitor into its account.
      if (deps.sessions && path === "/api/session" && (request.method === "POST" || request.method === "DELETE")) {
        refuseCrossSite(request);
        if (request.method === "POST" && !isJsonType(request.headers.get("content-type") ?? "")) {
          throw new AppError("unsupported_media_type", "sign in with a JSON body (Content-Type: application/json)");
        }
      }
      // The header and the key are never logged, nor put in an error: only the key's account is (the access line).
      const auth = request.headers.get("authorization");
      const key = auth === null ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
      // True when this process's key cache vouched for the caller, not the database.
      let cached = false;
      const bearer = async (fresh: boolean) => {
        const check: KeyCheck = key ? await accounts.authenticate(key, address, { fresh }) : { caller: null };
        if ("refused" in check) {
          Object.assign(set.headers, check.refused.headers, { "RateLimit-Policy": `${limiter.policy}, ${check.refused.headers["RateLimit-Policy"]}` });
          throw new AppError("rate_limited", `too many unknown API keys from this address; retry after ${check.refused.headers["Retry-After"]} s`);
        }
        state.caller = check.caller;
        state.badKey = state.caller === null;
        cached = check.cached === true;
      };
      if (auth !== null) {
        await bearer(false);
      } else if (deps.sessions && path.startsWith("/api/")) {
        // No bearer key: the browser's session cookie, if any, stands for the account's personal key (on the API:
        // the app's shell and assets need no credential, so their requests cost no session lookup). It is taken
        // only from the app's own pages (any method: a cross-site link or image is refused too), and its writes
        // must carry the session's CSRF token (a cross-site form cannot send the header, nor read the token).
        state.sessionToken = cookieValue(request.headers.get("cookie"), sessionCookie);
        if (state.sessionToken !== null) refuseCrossSite(request);
        const session = state.sessionToken ? await deps.sessions.authenticate(state.sessionToken) : null;
        if (session) {
          state.caller = session.caller;
          state.sessionId = session.sessionId;
          const signIn = request.method === "POST" && path === "/api/session";
          if (!safeMethods.has(request.method) && !signIn && !sameToken(request.headers.get(csrfHeader), session.csrfToken)) {
            throw new AppError("csrf_failed", "a write made with the session cookie needs the session's CSRF token in the X-CSRF-Token header");
          }
        }
      }
      if (!internal.has(request)) {
        const rateKey = () => (state.caller ? credentialRateKey(state.caller.keyId) : `ip:${address}`);
        let decision: RateDecision = await limiter.take(rateKey());
        // The cache vouched for the key, but the key's shared count says another replica revoked it, or that count
        // could not be read (so neither could a mark): the database decides, whatever this replica heard on the bus.
        if (cached && (decision.revoked || decision.local)) {
          if (decision.revoked) accounts.forget?.(state.caller!.keyId);
          await bearer(true);
          if (decision.revoked || !state.caller) decision = await limiter.take(rateKey());
        }
        Object.assign(set.headers, decision.headers);
        if (!decision.allowed) {
          throw new AppError("rate_limited", `more than ${config.rateLimit} requests in 60 s; retry after ${decision.headers["Retry-After"]} s`);
        }
      }
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > config.maxBodyBytes) throw tooLarge(config.maxBodyBytes);
    })
    // Every body, chunked ones included, is read through a byte count that stops at the limit.
    .onParse({ as: "global" }, async ({ request, contentType, route }) => {
      const op = byRoute.get(`${request.method} ${route}`)?.op;
      // A route that takes no body refuses one at once: it is never parsed, nor passed on to a service.
      if (op && !op.body) return readNoBody(request);
      // A file sent as itself (an import) is kept as bytes: decoding it as text would lose what is not UTF-8.
      const file = op?.fileBody;
      if (file) return fileOrForm(await readLimited(request, config.maxBodyBytes), contentType, file.field);
      return parseBody(request, contentType, config.maxBodyBytes);
    })
    .onError({ as: "global" }, ({ code, error, set, request, path, route, query, params }) => {
      let appErr: AppError;
      if (error instanceof AppError) appErr = error;
      else if (code === "NOT_FOUND") appErr = routeNotFound(request.method, path);
      else if (code === "VALIDATION" && error instanceof ValidationError && error.type === "property") {
        const op = byRoute.get(`${request.method} ${route}`)?.op;
        const issues = outOfRangeFields([op?.params, op?.query], [params ?? {}, query ?? {}]);
        appErr = validationFailed("query", issues.length > 0 ? issues : (error.all as never));
      } else if (code === "VALIDATION" && error instanceof ValidationError && error.type !== "response") {
        appErr = validationFailed(error.type, error.all as never);
      } else if (code === "PARSE") {
        // Elysia wraps what a body parser throws; body.ts throws the answer itself (413, 400 invalid_json).
        const cause = (error as { cause?: unknown }).cause;
        appErr = cause instanceof AppError ? cause : new AppError("invalid_json", "request body is not valid JSON");
      }
      else if (code === "INVALID_COOKIE_SIGNATURE" || code === "INVALID_FILE_TYPE") {
        appErr = new AppError("validation_failed", "invalid request", { fields: {} });
      } else {
        appErr = toAppError(error);
        if (appErr.code === "internal_error") log.error({ err: error, reqId: states.get(request)?.id, code }, "request failed");
      }
      set.status = appErr.status;
      return appErr.toBody();
    })
    .onAfterResponse(({ request, set, path, route, responseValue }) => {
      const state = states.get(request);
      // A Response a route made itself carries its own status; otherwise it is what the route or onError set.
      const status = responseValue instanceof Response ? responseValue.status : Number(set.status) || 200;
      // The MCP tools' own requests through this app are part of one /mcp request, counted once as that.
      if (state && !internal.has(request)) {
        httpRequestDuration.observe({ method: request.method, route: routeOf(request.method, path, route), status: String(status) }, secondsSince(state.started));
      }
      log.info(
        {
          reqId: state?.id,
          method: request.method,
          path,
          status,
          ms: state ? Math.round((performance.now() - state.started) * 10) / 10 : undefined,
          account: state?.caller?.accountId,
        },
        "request",
      );
    })
    .derive({ as: "global" }, ({ request, route }) => {
      const state = states.get(request)!;
      const entry = byRoute.get(`${request.method} ${route}`);
      if (entry && entry.op.permission !== null) {
        if (!state.caller) {
          const why = state.badKey
            ? "the API key is invalid or revoked"
            : state.sessionToken
              ? "the session has ended or expired: sign in again"
              : "send Authorization: Bearer <API key>, or sign in (POST /api/session)";
          throw new AppError("unauthorized", why);
        }
        if (!permits(state.caller, entry.op)) {
          if (entry.op.wholeLibrary && isScoped(state.caller)) {
            throw new AppError("forbidden", `${request.method} ${route} works on the whole library: a key scoped to a tag or collection cannot call it`);
          }
          throw new AppError("forbidden", `this key lacks the ${entry.op.permission} permission for ${request.method} ${route}`);
        }
      }
      return { caller: state.caller, requestId: state.id };
    })
    // After the credential check, before Elysia validates (and would coerce) the body.
    .onTransform({ as: "global" }, (ctx) => {
      const { request, route } = ctx;
      const entry = byRoute.get(`${request.method} ${route}`);
      // No body at all where the contract's body is optional (POST /api/webhooks/:id/rotate-secret): absent, not "".
      if (ctx.body === "" && entry?.op.body && isOptionalSchema(entry.op.body) && request.headers.get("content-length") === "0") ctx.body = undefined;
      // A document sent as itself fills the one field the contract names for it.
      const text = entry?.op.textBody;
      const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
      if (text && typeof ctx.body === "string" && text.contentTypes.includes(type)) ctx.body = { [text.field]: ctx.body };
      const file = entry?.op.fileBody;
      if (file && ctx.body instanceof Uint8Array) {
        if (ctx.body.byteLength === 0) throw new AppError("validation_failed", "the request body is empty: send the file", { fields: { [file.field]: "empty" } });
        ctx.body = { [file.field]: Buffer.from(ctx.body).toString("base64") };
      }
      const body = ctx.body;
      const refused = entry && checkJsonBody(entry.op, body, request.headers.get("content-type")?.includes("json") === true);
      if (refused) throw refused;
    })
    .use(docsUi({ title: apiTitle }));

  for (const { name, op } of byRoute.values()) {
    const subject = subjectOf(name);
    const local = (deps.local as unknown as Record<string, Handler<Operation>>)[name];
    // The table is dynamic, so Elysia cannot infer per-route types here; the contract's types bind the handlers.
    (app.route as (...args: unknown[]) => unknown)(
      op.method,
      op.path,
      async (ctx: any) => {
        const requestId: string = ctx.requestId;
        const accept = op.alternates && chooseAlternate(op.alternates, ctx.request.headers.get("accept"));
        const input = { params: ctx.params ?? {}, query: ctx.query ?? {}, body: ctx.body, ...(accept ? { accept } : {}) };
        const refused = checkText(op, input);
        if (refused) throw refused;
        let reply: unknown;
        if (local) {
          const state = states.get(ctx.request)!;
          const cookies: string[] = [];
          const hctx: HandlerContext = {
            caller: ctx.caller,
            requestId,
            log: log.child({ reqId: requestId, op: name }),
            http: {
              address: state.address,
              userAgent: ctx.request.headers.get("user-agent"),
              secure: isSecure(ctx.request),
              sessionId: state.sessionId,
              sessionToken: state.sessionToken,
              setCookie: (cookie) => cookies.push(cookie),
              rateLimit: (headers) => addRateLimit(ctx.set.headers, headers),
            },
          };
          reply = await local(input as never, hctx);
          if (cookies.length > 0) ctx.set.headers["set-cookie"] = cookies;
          // Health answers 503 when a dependency is down, so probes see it without reading the body.
          if (name === "health" && (reply as { status?: string }).status !== "ok") ctx.set.status = 503;
        } else {
          // The server drops a connection that stays silent past its idle timeout (30 s): a long wait is allowed
          // on the routes that declare one.
          if (op.timeoutMs) ctx.server?.timeout(ctx.request, Math.ceil(op.timeoutMs / 1000) + 5);
          const headers: Record<string, string> = { [requestIdHeader]: requestId };
          if (ctx.caller) headers[callerHeader] = headerOf(ctx.caller);
          const json = await bus.requestJson(subject, input, { timeoutMs: Math.max(config.requestTimeoutMs, op.timeoutMs ?? 0), headers });
          // The service's JSON goes out as it came: no parse, no re-encode (unless checking it against the contract).
          if (!op.produces && !accept && !config.validateResponses) return jsonResponse(json, ctx.set.headers);
          reply = JSON.parse(json);
        }
        if (op.produces || accept) {
          const raw = reply as RawReply;
          if ("blob" in raw) return rawResponse(raw, ctx.set.headers, await blobBody(deps.blobs, raw, log));
          return rawResponse(raw, ctx.set.headers, raw.encoding === "base64" ? Buffer.from(raw.body, "base64") : raw.body);
        }
        return reply;
      },
      routeOptions(name, op) as never,
    );
  }
  // The MCP server over Streamable HTTP (stateless: POST only; GET and DELETE answer 405 from the transport).
  const mcp = mcpHandler({ handle: (request) => app.handle(request), internal });
  for (const method of ["POST", "GET", "DELETE"]) (app.route as (...args: unknown[]) => unknown)(method, mcpPath, mcp, { detail: { hide: true } });
  // The web app: its assets, and its shell for every other GET that is not the API.
  const web = webRoutes();
  app.get(web.assetsPattern, web.asset as never, { detail: { hide: true } });
  app.get("/", web.shell as never, { detail: { hide: true } });
  app.get("/*", web.shell as never, { detail: { hide: true } });
  // Described from the route table alone: the gateway's own body parser (body.ts) is a function Elysia's document
  // generator cannot see through, so the live app would describe no body types. Built now, before any request has
  // made Elysia compile (and write into) a schema.
  const described = new Elysia();
  for (const { name, op } of byRoute.values()) (described.route as (...args: unknown[]) => unknown)(op.method, op.path, () => null, routeOptions(name, op));
  const document = openApiDocument(
    described,
    {
      info: {
        title: apiTitle,
        description: "A self-hostable personal library: saved web items, notes, projects, sources, exports, changes and webhooks.",
        version: documentVersion,
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
    [...byRoute.values()].filter(({ op }) => op.fileBody).map(({ op }) => op),
  );
  app.get(
    specPath,
    ({ set }) => {
      set.headers["content-type"] = "application/json;charset=utf-8";
      return document;
    },
    { detail: { hide: true } },
  );
  return app;
}

/**
 * The body of a route that takes a file: JSON naming the file's field is the JSON form (validated as such);
 * anything else, JSON files included (a wallabag export, a cut one), is the file itself.
 */
function fileOrForm(bytes: Uint8Array, contentType: string, field: string): unknown {
  if (isJsonType(contentType)) {
    // Measured before parsing, as any JSON body is (no export a file route takes nests this deep).
    const deep = tooDeep(bytes);
    if (deep) throw deep;
    try {
      const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
      if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, field)) return value;
    } catch {
      // not JSON at all: a file
    }
  }
  return bytes;
}

/** True when the request reached us over HTTPS, directly or through a proxy that says so. */
function isSecure(request: Request): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

/**
 * Refuses (403 csrf_failed) a request a browser made from another site. A browser that sends `Sec-Fetch-Site`
 * says so itself (same-origin, or none: typed or bookmarked, pass), and its word is taken over `Origin`: a proxy
 * that rewrites `Host` would make the app's own requests look foreign. An older browser is judged by `Origin`,
 * whose host must be the one the request was sent to (`Host`, or the `X-Forwarded-Host` a proxy set: a page
 * elsewhere cannot set that header). A request with neither (curl, a server) is no browser's: nothing is refused.
 */
function refuseCrossSite(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const fromHere = site !== null ? site === "same-origin" || site === "none" : origin === null || sameHost(origin, request);
  if (!fromHere) throw new AppError("csrf_failed", "a request from another site cannot use or set the session cookie");
}

function sameHost(origin: string, request: Request): boolean {
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false; // "null": a sandboxed frame, a redirect across sites
  }
  const forwarded = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const hosts = [request.headers.get("host"), forwarded];
  // Normalised as hosts of the origin's scheme, so an explicit default port matches the origin without one.
  return hosts.some((host) => {
    if (!host) return false;
    try {
      return new URL(`${from.protocol}//${host}`).host === from.host;
    } catch {
      return false;
    }
  });
}

/** Adds a budget's entries to the response's RateLimit headers (Retry-After as given, on a refusal). */
function addRateLimit(headers: Record<string, unknown>, more: Record<string, string>): void {
  for (const [name, value] of Object.entries(more)) {
    const current = headers[name];
    headers[name] = name !== "Retry-After" && typeof current === "string" && current !== "" ? `${current}, ${value}` : value;
  }
}

/** Compares a sent token with the expected one in constant time. */
function sameToken(sent: string | null, expected: string): boolean {
  if (sent === null) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** True for a schema marked `t.Optional` (an operation whose whole body may be left out). */
const isOptionalSchema = (s: object): boolean => (s as Record<symbol, unknown>)[OptionalKind] === "Optional";

/** A route's schemas (its own copies) and its description, for the live app and for the document alike. */
function routeOptions(name: OperationName, op: Operation) {
  const subject = subjectOf(name);
  return {
    params: ownCopy(op.params),
    query: ownCopy(op.query),
    body: ownCopy(op.body),
    response: op.produces
      ? undefined
      : {
          200: ownCopy(op.response),
          ...Object.fromEntries([400, 401, 403, 404, 429].map((status) => [status, ownCopy(ErrorBody)])),
        },
    detail: {
      operationId: name,
      summary: op.summary,
      tags: [op.tag],
      security: op.permission ? [{ bearer: [] }] : [],
      description: op.permission ? `Needs \`${op.permission}\`. Bus subject \`${subject}\`.` : "No credential needed.",
    },
  };
}

/** The alternate media type an Accept header names (before any JSON it also names), or undefined for JSON. */
function chooseAlternate(alternates: readonly string[], header: string | null): string | undefined {
  if (!header) return undefined;
  const wanted = header.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  for (const type of wanted) {
    if (type === "application/json" || type === "*/*") return undefined;
    if (alternates.includes(type)) return type;
  }
  return undefined;
}

function rawResponse(reply: RawReply, headers: Record<string, unknown>, body: string | Uint8Array | ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: withHeaders(headers, { ...reply.headers, "content-type": reply.contentType }) });
}

function jsonResponse(json: string, headers: Record<string, unknown>): Response {
  return new Response(json, { headers: withHeaders(headers, { "content-type": "application/json;charset=utf-8" }) });
}

export type GatewayApp = ReturnType<typeof createGatewayApp>;
