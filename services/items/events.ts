// Item change events for the event log: what changed, and the item's scope (status, tags, collections) before and after.
import type { ItemEventType, ItemScope } from "@trove/contracts";
import { newId, nowMillis } from "@trove/db";
import type { ItemEventRow } from "./item-events.ts";
import type { ItemRow } from "./items.repository.ts";

export type Scope = ItemScope;

/** An item's scope as its row stands: what key scopes and webhook scopes are matched against. */
export function scopeOf(r: ItemRow): Scope {
  return { status: r.status, tagSlugs: r.tag_list.map((t) => t.slug), collectionIds: r.collection_list.map((c) => c.id) };
}

export function itemEvent(type: ItemEventType, itemId: string, before: Scope | null, after: Scope | null, payload: Record<string, unknown>): ItemEventRow {
  return { id: newId(), type, itemId, changedAt: nowMillis(), beforeScope: before, afterScope: after, payload };
}

/**
 * Events for one change of an item, from its scope before and after plus the plain fields that changed. The
 * events are steps (fields and status, then tags added, tags removed, collections added, collections removed),
 * each with the scope before and after its own step, so a reader scoped to a tag or collection sees the item
 * leave or enter at exactly one of them.
 */
export function changeEvents(itemId: string, before: Scope, after: Scope, changedFields: string[]): ItemEventRow[] {
  const events: ItemEventRow[] = [];
  const added = (a: string[], b: string[]) => b.filter((x) => !a.includes(x));
  let at = before;
  const step = (type: ItemEventType, next: Scope, payload: Record<string, unknown>) => {
    events.push(itemEvent(type, itemId, at, next, payload));
    at = next;
  };
  const tagsAdded = added(before.tagSlugs, after.tagSlugs);
  const tagsRemoved = added(after.tagSlugs, before.tagSlugs);
  const colsAdded = added(before.collectionIds, after.collectionIds);
  const colsRemoved = added(after.collectionIds, before.collectionIds);
  if (changedFields.length > 0) step("item.updated", { ...at, status: after.status }, { changedFields });
  if (tagsAdded.length > 0) {
    const tagSlugs = tagsRemoved.length > 0 ? [...at.tagSlugs, ...tagsAdded] : after.tagSlugs;
    step("item.tagged", { ...at, tagSlugs }, { changedFields: ["tags"], tagSlugsAdded: tagsAdded });
  }
  if (tagsRemoved.length > 0) step("item.untagged", { ...at, tagSlugs: after.tagSlugs }, { changedFields: ["tags"], tagSlugsRemoved: tagsRemoved });
  if (colsAdded.length > 0) {
    const collectionIds = colsRemoved.length > 0 ? [...at.collectionIds, ...colsAdded] : after.collectionIds;
    step("item.collection_added", { ...at, collectionIds }, { changedFields: ["collections"], collectionIdsAdded: colsAdded });
  }
  if (colsRemoved.length > 0) {
    step("item.collection_removed", { ...at, collectionIds: after.collectionIds }, { changedFields: ["collections"], collectionIdsRemoved: colsRemoved });
  }
  return events;
}
