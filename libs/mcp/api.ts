// The public REST API as the MCP tools see it: one caller's credential, JSON in and out, every non-2xx answer an
// ApiError carrying the API's own error code. Tools reach Trove through this alone, never a database or the bus,
// so permissions, scopes, quotas, rate limits and the SSRF rules hold exactly as over REST.

/** Sends one request: `fetch` against TROVE_URL (stdio), or the gateway's own handler (the /mcp endpoint). */
export type Send = (request: Request) => Promise<Response>;

type QueryValue = string | number | boolean | null | undefined;

export interface CallOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/** An error answer of the API: status, stable code, message and the details the API sent beside them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export class TroveApi {
  /**
   * @param base the server's origin ("http://127.0.0.1:8080")
   * @param authorization the caller's Authorization header, sent unchanged on every call
   */
  constructor(
    private readonly base: string,
    private readonly authorization: string,
    private readonly send: Send = (request) => fetch(request),
  ) {}

  get<T = any>(path: string, query?: CallOptions["query"]): Promise<T> {
    return this.call("GET", path, { query });
  }

  post<T = any>(path: string, body: unknown = {}): Promise<T> {
    return this.call("POST", path, { body });
  }

  patch<T = any>(path: string, body: unknown): Promise<T> {
    return this.call("PATCH", path, { body });
  }

  delete<T = any>(path: string): Promise<T> {
    return this.call("DELETE", path, {});
  }

  /** One call; JSON answers parsed, any other type as text. */
  async call<T>(method: string, path: string, opts: CallOptions): Promise<T> {
    const url = new URL(path, this.base);
    for (const [key, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { authorization: this.authorization, accept: "application/json" };
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.send(
      new Request(url.href, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    );
    const text = await response.text();
    const json = (response.headers.get("content-type") ?? "").includes("json");
    if (!response.ok) throw errorOf(response.status, json ? parse(text) : null, text);
    return (json ? parse(text) : text) as T;
  }
}

/** Path segment of a caller-supplied id: encoded, so no id can reach another route. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function errorOf(status: number, body: unknown, text: string): ApiError {
  if (body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string") {
    const { error, message, ...details } = body as Record<string, unknown>;
    return new ApiError(status, error as string, typeof message === "string" ? message : (error as string), details);
  }
  return new ApiError(status, status === 429 ? "rate_limited" : "http_error", text.slice(0, 200) || `HTTP ${status}`);
}
