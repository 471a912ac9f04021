// Tag rules: slugs are stable (renaming keeps the slug), names or slugs are accepted anywhere a tag is named,
// tags are created on first use. Deleting a tag unlinks it from items (with events) and removes it from notes before
// it answers.
// A tag's definition is the whole library's: a scoped key lists only its items' tags and defines none.
import { isScoped, type Caller, type TagDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import { itemEvent, scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemsRepository } from "./items.repository.ts";
import { requireWholeLibrary } from "./key-scope.ts";
import type { NotesTagRemoval } from "./notes-tag-removal.ts";
import { tagSlug } from "./slugs.ts";
import { TagsRepository, type TagRow } from "./tags.repository.ts";

const toDto = (t: TagRow, itemCount?: number): TagDto => ({
  name: t.name,
  slug: t.slug,
  ...(t.description ? { description: t.description } : {}),
  ...(itemCount !== undefined ? { itemCount } : {}),
});

export class TagsService {
  constructor(
    private readonly repo: TagsRepository,
    private readonly items: ItemsRepository,
    private readonly events: ItemEvents,
    private readonly notes: NotesTagRemoval,
  ) {}

  slugsOf(namesOrSlugs: string[]): string[] {
    return [...new Set(namesOrSlugs.map(tagSlug))];
  }

  /** The account's tags; for a scoped key, the tags of the items in its scope (and its own), counted over those. */
  async list(caller: Caller) {
    const rows = isScoped(caller)
      ? await this.repo.listInScope(caller.accountId, this.items.filteredIds(caller.accountId, { scope: caller.scope }), caller.scope?.tagSlugs ?? [])
      : await this.repo.listVisible(caller.accountId);
    return { tags: rows.map((t) => toDto(t, t.item_count)) };
  }

  async create(caller: Caller, input: { name: string; description?: string }) {
    requireWholeLibrary(caller, "creating a tag");
    const name = input.name.trim();
    if (!name) throw new AppError("validation_failed", "name is empty", { fields: { name: "must not be blank" } });
    const { tag, existing } = await this.repo.ensure(caller.accountId, {
      id: newId(),
      name,
      slug: tagSlug(name),
      description: input.description ?? null,
      now: nowSeconds(),
    });
    return { tag: toDto(tag), existing };
  }

  async update(caller: Caller, slug: string, input: { name?: string; description?: string | null }) {
    requireWholeLibrary(caller, "renaming or describing a tag");
    const set: { name?: string; description?: string | null } = {};
    if (input.name !== undefined) {
      set.name = input.name.trim();
      if (!set.name) throw new AppError("validation_failed", "name is empty", { fields: { name: "must not be blank" } });
    }
    if (input.description !== undefined) set.description = input.description;
    const tag = await this.items.transaction(async (tx) => {
      const repo = new TagsRepository(tx.kysely);
      const changed = Object.keys(set).length > 0 ? await repo.update(caller.accountId, slug, set) : (await repo.bySlugs(caller.accountId, [slug]))[0];
      // Items carry their tags' names: a rename reaches them.
      if (changed && set.name !== undefined) await tx.refreshLists(caller.accountId, await repo.itemsWithTag(caller.accountId, changed.id));
      return changed;
    });
    if (!tag) throw new AppError("not_found", "tag not found");
    return { tag: toDto(tag) };
  }

  /**
   * Removes the tag from every item (an item.untagged event each) and deletes it, then has notes remove it from
   * theirs before answering (read your own write); the tag.deleted event covers a notes service that is away.
   */
  async delete(caller: Caller, slug: string, requestId?: string) {
    requireWholeLibrary(caller, "deleting a tag");
    const { itemsUntagged, deletion } = await this.items.transaction(async (tx, uow) => {
      const repo = new TagsRepository(tx.kysely);
      const [tag] = await repo.bySlugs(caller.accountId, [slug]);
      if (!tag) throw new AppError("not_found", "tag not found");
      const itemIds = await repo.itemsWithTag(caller.accountId, tag.id);
      const rows = await tx.getMany(caller.accountId, itemIds, null);
      const events = rows.map((row) => {
        const before = scopeOf(row);
        const after = { ...before, tagSlugs: before.tagSlugs.filter((s) => s !== slug) };
        return itemEvent("item.untagged", row.id, before, after, { changedFields: ["tags"], tagSlugsRemoved: [slug] });
      });
      await this.events.record(uow, caller.accountId, events);
      await repo.delete(caller.accountId, tag.id);
      await tx.refreshLists(caller.accountId, itemIds);
      // Recorded with the deletion, so notes hears of it even if the request below never reaches it (a crash, no
      // notes service running). Both may reach notes; removing a deleted tag from a note is idempotent.
      const deletion = await this.events.recordTagDeleted(uow, caller.accountId, slug);
      return { itemsUntagged: rows.length, deletion };
    });
    await this.notes.apply(caller, deletion, requestId);
    return { ok: true, slug, itemsUntagged };
  }

  /** The slugs of tags named by name or slug, and the names that match no tag of the account. */
  async resolve(caller: Caller, namesOrSlugs: string[]): Promise<{ slugs: string[]; unknown: string[] }> {
    const slugs = this.slugsOf(namesOrSlugs);
    const found = new Set((await this.repo.bySlugs(caller.accountId, slugs)).map((t) => t.slug));
    return { slugs, unknown: namesOrSlugs.filter((n) => !found.has(tagSlug(n))) };
  }

  /**
   * Adds to an item the tags (names) it lacks, creating missing tags as `create` does (trimmed name, its slug);
   * nothing is removed. Answers the item's slugs afterwards: `current` first, then the added ones.
   */
  async addItemTags(tx: ItemsRepository, accountId: string, itemId: string, current: string[], names: string[], now: number): Promise<string[]> {
    const wanted = new Map<string, string>();
    for (const name of names.map((n) => n.trim()).filter(Boolean)) {
      const slug = tagSlug(name);
      if (!current.includes(slug) && !wanted.has(slug)) wanted.set(slug, name);
    }
    if (wanted.size === 0) return current;
    const repo = new TagsRepository(tx.kysely);
    const tags = await repo.ensureMany(accountId, [...wanted].map(([slug, name]) => ({ id: newId(), name, slug })), now);
    await repo.link(accountId, itemId, tags.map((t) => t.id), now);
    return [...current, ...tags.map((t) => t.slug)];
  }

  /** Sets an item's tags to exactly `wanted` (names or slugs), creating missing tags; returns the slugs. */
  async setItemTags(tx: ItemsRepository, caller: Caller, itemId: string, current: string[], wanted: string[], now: number): Promise<string[]> {
    const repo = new TagsRepository(tx.kysely);
    const bySlug = new Map<string, string>();
    for (const name of wanted.map((w) => w.trim()).filter(Boolean)) if (!bySlug.has(tagSlug(name))) bySlug.set(tagSlug(name), name);
    const tags: TagRow[] = [];
    for (const [slug, name] of bySlug) {
      tags.push((await repo.ensure(caller.accountId, { id: newId(), name, slug, now })).tag);
    }
    const keep = new Set(tags.map((t) => t.slug));
    const removed = current.filter((s) => !keep.has(s));
    await repo.unlink(caller.accountId, itemId, (await repo.bySlugs(caller.accountId, removed)).map((t) => t.id));
    await repo.link(caller.accountId, itemId, tags.filter((t) => !current.includes(t.slug)).map((t) => t.id), now);
    return [...current.filter((s) => keep.has(s)), ...tags.map((t) => t.slug).filter((s) => !current.includes(s))];
  }
}
