// One Response's headers: those Elysia's hooks set on the context (request id, rate limit) and then the handler's own.

export function withHeaders(set: Record<string, unknown>, extra: Record<string, string>): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(set)) if (typeof v === "string") out.set(k, v);
  for (const [k, v] of Object.entries(extra)) out.set(k, v);
  return out;
}
