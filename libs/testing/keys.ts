// Connected-client keys for tests, made the way a user makes them: POST /api/connected-clients with the
// account's personal key.
import type { KeyScope } from "@trove/contracts";
import { aliceKey, bobKey, type TestTrove } from "./trove.ts";

const personalKeys: Record<string, string> = { "alice@example.test": aliceKey, "bob@example.test": bobKey };

/** Creates a connected-client key for the seeded account with this email (alice by default); answers the key. */
export async function addClientKey(
  trove: TestTrove,
  opts: { email?: string; scope?: KeyScope | null; access?: "read_write" | "read_only" } = {},
): Promise<string> {
  return (await createClient(trove, opts)).apiKey;
}

/** Like addClientKey, answering the client's id too (to revoke it). */
export async function createClient(
  trove: TestTrove,
  opts: { email?: string; scope?: KeyScope | null; access?: "read_write" | "read_only"; name?: string } = {},
): Promise<{ id: string; apiKey: string }> {
  const email = opts.email ?? "alice@example.test";
  const key = personalKeys[email];
  if (!key) throw new Error(`no seeded personal key for ${email}: use alice@example.test or bob@example.test`);
  const json: Record<string, unknown> = { name: opts.name ?? "test client", access: opts.access ?? "read_write" };
  if (opts.scope) json.scope = opts.scope;
  const res = await trove.api("/api/connected-clients", { method: "POST", key, json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`POST /api/connected-clients answered ${res.status}: ${JSON.stringify(body)}`);
  return { id: body.client.id, apiKey: body.apiKey };
}
