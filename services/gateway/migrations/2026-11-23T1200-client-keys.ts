import { sql, type Kysely } from "kysely";

// When a key was last looked up (the gateway caches keys, so this is as fresh as the cache), and the listing of
// an account's active client keys, newest first.
export async function up(db: Kysely<any>) {
  await sql`alter table gateway.api_keys add column last_used_at int8`.execute(db);
  await sql`create index api_keys_account_active on gateway.api_keys (account_id, created_at desc, id desc) where revoked_at is null`.execute(db);
}
