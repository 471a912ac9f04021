import { sql, type Kysely } from "kysely";

// Sign-in: an optional password per account (a slow hash, argon2id) and browser sessions (the cookie's token
// and the session's CSRF token, both random; the cookie's stored only as SHA-256).
export async function up(db: Kysely<any>) {
  await sql`alter table gateway.accounts add column password_hash text`.execute(db);
  await sql`create table gateway.sessions (
    id text primary key,
    account_id text not null references gateway.accounts(id) on delete cascade,
    token_hash text not null unique,
    csrf_token text not null,
    created_at int8 not null,
    expires_at int8 not null,
    last_used_at int8,
    revoked_at int8,
    user_agent text,
    address text
  )`.execute(db);
  await sql`create index sessions_account_live on gateway.sessions (account_id, created_at desc) where revoked_at is null`.execute(db);
}
