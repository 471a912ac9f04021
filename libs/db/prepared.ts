// PostgreSQL re-plans every unnamed statement, and kysely sends only unnamed ones. This pool hands kysely
// clients that name each distinct query text (per connection, bounded), so PostgreSQL parses and plans it once
// per connection and reuses the plan. On the hot item read this cuts server CPU severalfold.
import type pg from "pg";

const maxNamedPerConnection = 500;
const preparable = /^\s*(select|insert|update|delete|with)\b/i;
/**
 * Marks a statement to be planned for its values each time (`.modifyFront(sql.raw(planEachTimeMarker))`): a
 * generic plan cannot fold a parameter into a constant (a set of 30,000 ids to hash, a tsquery built once), and
 * tests it per row.
 */
export const planEachTimeMarker = "/* plan each time */";

interface KyselyClient {
  query(sql: string, params: readonly unknown[]): Promise<pg.QueryResult>;
  release(): void;
}

const namesByClient = new WeakMap<pg.PoolClient, Map<string, string>>();

function wrap(client: pg.PoolClient): KyselyClient {
  let names = namesByClient.get(client);
  if (!names) namesByClient.set(client, (names = new Map()));
  const statements = names;
  return {
    async query(text, params) {
      let name = statements.get(text);
      if (!name && statements.size < maxNamedPerConnection && preparable.test(text) && !text.includes(planEachTimeMarker)) {
        name = `trove_${statements.size}`;
        statements.set(text, name);
      }
      if (!name) return corked(client, () => client.query(text, params as unknown[]));
      try {
        return await corked(client, () => client.query({ name, text, values: params as unknown[] }));
      } catch (err) {
        // A migration changed a table under a prepared plan: forget the name and run the text unnamed once.
        if ((err as { code?: string }).code !== "0A000") throw err;
        statements.delete(text);
        return client.query(text, params as unknown[]);
      }
    },
    release: () => client.release(),
  };
}

/** pg writes Bind, Describe, Execute and Sync one by one, synchronously: corked, they leave in one write. */
function corked<T>(client: pg.PoolClient, send: () => T): T {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  stream?.cork?.();
  try {
    return send();
  } finally {
    stream?.uncork?.();
  }
}

/** The pool kysely's PostgresDialect gets: same pool, clients that prepare their statements. */
export function preparingPool(pool: pg.Pool) {
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
