// Mail: every message an email inbox took in (who sent it, the item it became, or why not), and the confirmation
// link or code found in it, so the user can finish a provider's forwarding setup.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table sources.messages (
    id text primary key,
    source_id text not null references sources.sources (id) on delete cascade,
    account_id text not null,
    message_id text,
    sender text not null,
    subject text not null,
    received_at int8 not null,
    size int8 not null,
    item_id text,
    status text not null,
    error text,
    confirmation jsonb
  )`.execute(db);
  await sql`create index messages_by_source on sources.messages (source_id, received_at desc, id desc)`.execute(db);
  await sql`create index messages_confirmations on sources.messages (source_id, received_at desc, id desc) where confirmation is not null`.execute(db);
}
