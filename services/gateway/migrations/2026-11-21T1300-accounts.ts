import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  await sql`create table gateway.accounts (
    id text primary key,
    email text not null unique,
    plan text not null,
    link_limit int8 not null,
    limit_scope text not null,
    created_at int8 not null
  )`.execute(db);
  await sql`create table gateway.api_keys (
    id text primary key,
    account_id text not null references gateway.accounts(id) on delete cascade,
    kind text not null,
    name text not null,
    key_hash text not null unique,
    access text not null,
    scope jsonb,
    created_at int8 not null,
    revoked_at int8
  )`.execute(db);
  await sql`create index api_keys_account on gateway.api_keys (account_id)`.execute(db);
}
