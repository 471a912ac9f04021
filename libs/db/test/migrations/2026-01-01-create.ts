import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  await sql`create table demo.things (id text primary key, n int8 not null, label text)`.execute(db);
  await sql`create index things_label_trgm on demo.things using gin (label gin_trgm_ops)`.execute(db);
}
