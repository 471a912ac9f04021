// A new item a scoped key saves joins its scope (the scope's first tag, or its collection), so the key can read
// what it saved.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { CollectionsRepository } from "./collections.repository.ts";
import type { Scope } from "./events.ts";
import type { ItemsRepository } from "./items.repository.ts";
import type { TagsService } from "./tags.service.ts";

/**
 * Puts a scoped caller's new item into its scope, inside the save's transaction; answers the tags and collections
 * the item has then. An unscoped caller's item stays as it is.
 */
export async function placeInScope(tx: ItemsRepository, tags: TagsService, caller: Caller, itemId: string, now: number): Promise<Pick<Scope, "tagSlugs" | "collectionIds">> {
  const scope = caller.scope;
  const firstTag = scope?.tagSlugs?.[0];
  if (firstTag !== undefined) return { tagSlugs: await tags.addItemTags(tx, caller.accountId, itemId, [], [firstTag], now), collectionIds: [] };
  if (scope?.collectionId) {
    const repo = new CollectionsRepository(tx.kysely);
    const found = await repo.find(caller.accountId, [scope.collectionId]);
    if (!found.some((c) => c.id === scope.collectionId)) throw new AppError("not_found", "this key's collection no longer exists");
    await repo.link(caller.accountId, itemId, [scope.collectionId], now);
    return { tagSlugs: [], collectionIds: [scope.collectionId] };
  }
  return { tagSlugs: [], collectionIds: [] };
}
