// One API call as alice (the benchmarks' account): JSON in and out, any non-2xx thrown with its status and body.
import { aliceKey } from "@trove/testing";

export async function call(base: string, method: string, path: string, json?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${aliceKey}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}
