// Deleting items inside a unit of work: one item.deleted event each, the rows (links, highlights and media rows
// cascade), and the blob keys of their uploads, which the caller drops only after the commit.
import type { UnitOfWork } from "@trove/db";
import { itemEvent, scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { MediaRepository } from "./media.repository.ts";

/** Deletes exactly these rows (already read, and locked, in `tx`); answers their count and their uploads' blob keys. */
export async function removeItems(
  tx: ItemsRepository,
  uow: UnitOfWork,
  events: ItemEvents,
  accountId: string,
  rows: ItemRow[],
): Promise<{ deleted: number; blobKeys: string[] }> {
  if (rows.length === 0) return { deleted: 0, blobKeys: [] };
  const ids = rows.map((r) => r.id);
  const blobKeys = await new MediaRepository(tx.kysely).blobKeysOfItems(accountId, ids);
  await events.record(uow, accountId, rows.map((row) => itemEvent("item.deleted", row.id, scopeOf(row), null, { url: row.url })));
  const deleted = await tx.deleteMany(accountId, ids);
  return { deleted, blobKeys };
}
