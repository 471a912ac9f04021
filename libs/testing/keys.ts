// Keys other than the seeded personal ones, stored directly until the connected-clients routes exist.
import type { KeyScope } from "@trove/contracts";
import type { TestTrove } from "./trove.ts";

/** Stores a connected-client key for the account with this email; answers the key. */
export async function addClientKey(
  trove: TestTrove,
  opts: { email?: string; key?: string; scope?: KeyScope | null; access?: "read_write" | "read_only" } = {},
): Promise<string> {
  const key = opts.key ?? `client-${crypto.randomUUID()}`;
  const account = await trove.db
    .withSchema("gateway")
    .selectFrom("accounts")
    .select("id")
    .where("email", "=", opts.email ?? "alice@example.test")
    .executeTakeFirstOrThrow();
  await trove.db
    .withSchema("gateway")
    .insertInto("api_keys")
    .values({
      id: crypto.randomUUID(),
      account_id: account.id,
      kind: "client",
      name: "test client",
      key_hash: new Bun.CryptoHasher("sha256").update(key).digest("hex"),
      access: opts.access ?? "read_write",
      scope: opts.scope ? JSON.stringify(opts.scope) : null,
      created_at: 1,
    })
    .execute();
  return key;
}
