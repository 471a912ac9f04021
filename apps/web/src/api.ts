// The public REST API from the browser: same origin, the session cookie, and the session's CSRF token on every
// write. Errors come back as ApiError with the API's stable code.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

export function setCsrf(token: string | null): void {
  csrfToken = token;
}

/** Calls the API; a Blob body (a file the user picked) is sent as itself, anything else as JSON. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const raw = body instanceof Blob;
  if (raw) headers["content-type"] = body.type || "application/octet-stream";
  else if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const payload = raw ? body : body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  const type = res.headers.get("content-type") ?? "";
  const data: any = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const code = typeof data === "object" && data ? String(data.error ?? "http_error") : "http_error";
    const message = typeof data === "object" && data ? String(data.message ?? code) : String(data);
    throw new ApiError(res.status, code, message, typeof data === "object" && data ? data : {});
  }
  return data as T;
}

export interface Session {
  account: { email: string; plan: string };
  session: { id: string } | null;
  csrfToken: string | null;
}

/** Who is signed in, or null. */
export async function currentSession(): Promise<Session | null> {
  try {
    const s = await api<Session>("GET", "/api/session");
    setCsrf(s.csrfToken);
    return s;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}
