// Received mail kept until it has become items: the raw message, who it came from and which inboxes took it. A
// row is written before the SMTP answer and deleted when its job ends, so raw mail is kept no longer than that.
import { sql, type Kysely } from "kysely";

export interface SpooledMail {
  id: string;
  raw: Buffer;
  envelopeFrom: string;
  /** The addresses of the inboxes that took it, lower case. */
  recipients: string[];
  size: number;
  /** Unix seconds. */
  receivedAt: number;
  /** What the first reading found (null until then): what a failure listed after the last try names. */
  read: { sender: string; subject: string; messageId: string | null } | null;
}

const table = sql.id("sources", "mail_spool");

export class MailSpoolRepository {
  constructor(private readonly db: Kysely<any>) {}

  /**
   * Keeps a message unless the spool would then hold more than `maxBytes`: false (nothing kept) when it would.
   * The room is counted in the insert itself.
   */
  async add(m: Omit<SpooledMail, "read">, maxBytes: number): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`insert into ${table} (id, raw, envelope_from, recipients, size, received_at)
      select ${m.id}::text, ${m.raw}::bytea, ${m.envelopeFrom}::text, ${JSON.stringify(m.recipients)}::jsonb, ${m.size}::int8, ${m.receivedAt}::int8
      where (select coalesce(sum(size), 0) from ${table}) + ${m.size}::int8 <= ${maxBytes}::int8
      returning id`.execute(this.db);
    return rows.length === 1;
  }

  async get(id: string): Promise<SpooledMail | undefined> {
    const { rows } = await sql<{
      id: string;
      raw: Uint8Array;
      envelope_from: string;
      recipients: string[];
      size: number | string;
      received_at: number | string;
      sender: string | null;
      subject: string | null;
      message_id: string | null;
    }>`select * from ${table} where id = ${id}`.execute(this.db);
    const r = rows[0];
    if (!r) return undefined;
    return {
      id: r.id,
      // pg answers a Buffer, PGlite a Uint8Array.
      raw: Buffer.isBuffer(r.raw) ? r.raw : Buffer.from(r.raw.buffer, r.raw.byteOffset, r.raw.byteLength),
      envelopeFrom: r.envelope_from,
      recipients: r.recipients,
      size: Number(r.size),
      receivedAt: Number(r.received_at),
      read: r.subject === null ? null : { sender: r.sender ?? "", subject: r.subject, messageId: r.message_id },
    };
  }

  /** Notes what the reading found, once. */
  async noteRead(id: string, read: { sender: string; subject: string; messageId: string | null }): Promise<void> {
    await sql`update ${table} set sender = ${read.sender}, subject = ${read.subject}, message_id = ${read.messageId}
      where id = ${id} and subject is null`.execute(this.db);
  }

  async delete(id: string): Promise<void> {
    await sql`delete from ${table} where id = ${id}`.execute(this.db);
  }
}
