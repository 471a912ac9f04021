// A scoped key's part of the library as the items service enforces it: what needs the whole library is refused,
// and a new item a scoped key saves joins its scope (the scope's first tag, or its collection), so the key can read
// what it saved. Which items a key sees is applied by the repository (`scope` in every read).
import { isScoped, type Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { CollectionsRepository } from "./collections.repository.ts";
import type { Scope } from "./events.ts";
import type { ItemsRepository } from "./items.repository.ts";
import type { TagsService } from "./tags.service.ts";

/** Refuses a scoped caller what changes the whole library or the definitions its scopes are made of. */
export function requireWholeLibrary(caller: Caller, what: string): void {
  if (isScoped(caller)) throw new AppError("forbidden", `${what} works on the whole library: a key scoped to a tag or collection cannot do it`);
}

/** A save of a URL whose item is outside the caller's scope: refused, naming nothing of the item. */
export const outsideScope = (): AppError =>
  new AppError("outside_scope", "this URL cannot be saved with this key: it is saved in the library outside the key's scope");

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
