// Collection rules: named by id, name or slug; creating an existing name returns the existing collection.
// A collection's definition is the whole library's: a scoped key lists only its items' collections and creates none.
import { isScoped, type Caller, type CollectionDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import { CollectionsRepository, type CollectionRow } from "./collections.repository.ts";
import type { ItemsRepository } from "./items.repository.ts";
import { requireWholeLibrary } from "./key-scope.ts";
import { collectionRefs, tagSlug } from "./slugs.ts";

const toDto = (c: CollectionRow, itemCount?: number): CollectionDto => ({
  id: c.id,
  name: c.name,
  slug: c.slug,
  ...(itemCount !== undefined ? { itemCount } : {}),
});

export class CollectionsService {
  constructor(
    private readonly repo: CollectionsRepository,
    private readonly items: ItemsRepository,
  ) {}

  /** The account's collections; for a scoped key, those of the items in its scope (and its own), counted over those. */
  async list(caller: Caller) {
    const rows = isScoped(caller)
      ? await this.repo.listInScope(caller.accountId, this.items.filteredIds(caller.accountId, { scope: caller.scope }), caller.scope?.collectionId)
      : await this.repo.list(caller.accountId);
    return { collections: rows.map((c) => toDto(c, c.item_count)) };
  }

  async create(caller: Caller, name: string) {
    requireWholeLibrary(caller, "creating a collection");
    const clean = name.trim();
    if (!clean) throw new AppError("validation_failed", "name is empty", { fields: { name: "must not be blank" } });
    const { collection, existing } = await this.repo.ensure(caller.accountId, { id: newId(), name: clean, slug: tagSlug(clean), now: nowSeconds() });
    return { collection: toDto(collection), existing };
  }

  /** The collection an id, name or slug names, or undefined. */
  async resolve(caller: Caller, ref: string, repo = this.repo): Promise<CollectionRow | undefined> {
    const found = await repo.find(caller.accountId, collectionRefs(ref));
    return found.find((c) => c.id === ref) ?? found[0];
  }

  /** Adds an item to the collections (names) it is not in, creating missing ones; answers its collection ids after. */
  async addItemCollections(tx: ItemsRepository, accountId: string, itemId: string, current: string[], names: string[], now: number): Promise<string[]> {
    const wanted = new Map<string, string>();
    for (const name of names.map((n) => n.trim()).filter(Boolean)) if (!wanted.has(tagSlug(name))) wanted.set(tagSlug(name), name);
    if (wanted.size === 0) return current;
    const repo = new CollectionsRepository(tx.kysely);
    const found = await repo.ensureMany(accountId, [...wanted].map(([slug, name]) => ({ id: newId(), name, slug })), now);
    const added = found.map((c) => c.id).filter((id) => !current.includes(id));
    await repo.link(accountId, itemId, added, now);
    return [...current, ...added];
  }

  /** Sets an item's collections to exactly `wanted` (ids, names or slugs; unknown names are created). */
  async setItemCollections(tx: ItemsRepository, caller: Caller, itemId: string, current: string[], wanted: string[], now: number): Promise<string[]> {
    const repo = new CollectionsRepository(tx.kysely);
    const ids: string[] = [];
    for (const ref of wanted.map((w) => w.trim()).filter(Boolean)) {
      const found = (await this.resolve(caller, ref, repo)) ?? (await repo.ensure(caller.accountId, { id: newId(), name: ref, slug: tagSlug(ref), now })).collection;
      if (!ids.includes(found.id)) ids.push(found.id);
    }
    await repo.unlink(caller.accountId, itemId, current.filter((c) => !ids.includes(c)));
    await repo.link(caller.accountId, itemId, ids.filter((c) => !current.includes(c)), now);
    return [...current.filter((c) => ids.includes(c)), ...ids.filter((c) => !current.includes(c))];
  }
}
