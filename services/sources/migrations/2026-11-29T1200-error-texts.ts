// Error texts recorded before they were made safe to show to every reading key kept a lower layer's words: the
// feed's host, an address, the sender of a mail. They are cut back to the kind of failure (newer runs write the
// new texts), in lastError, error events and the messages list alike.
import { sql, type Kysely } from "kysely";

/** [pattern, replacement] in PostgreSQL's regexp_replace, for the texts the earlier code wrote. */
const rewrites: [string, string][] = [
  ["^(fetch failed \\([a-z_]+\\)): .*$", "\\1"],
  ["^url_not_allowed: .*$", "url_not_allowed"],
  ["^(not a readable RSS, Atom, RDF or JSON feed): .*$", "\\1"],
  ["^adding items failed: .*(; [0-9]+ entr(y is|ies are) tried again next run)$", "adding items failed\\1"],
  ["^a message from .* was not added: ([a-z_]+): .*$", "a message was not added: \\1"],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [pattern, replacement] of rewrites) {
    await sql`update sources.sources set last_error = regexp_replace(last_error, ${pattern}, ${replacement})
      where last_error ~ ${pattern}`.execute(db);
    await sql`update sources.source_events set message = regexp_replace(message, ${pattern}, ${replacement})
      where type = 'error' and message ~ ${pattern}`.execute(db);
  }
  // A mail's error (in the messages list and its error event) was "<code>: <the items service's words>".
  const [pattern, replacement] = ["^([a-z_]+): .*$", "\\1"];
  await sql`update sources.messages set error = regexp_replace(error, ${pattern}, ${replacement}) where error ~ ${pattern}`.execute(db);
  await sql`update sources.source_events set message = regexp_replace(message, ${pattern}, ${replacement})
    where type = 'error' and message ~ ${pattern}`.execute(db);
}
