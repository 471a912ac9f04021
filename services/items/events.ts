// Item change events for the outbox: what changed, and the item's scope (status, tags, collections) before and after.
import { newId, nowMillis } from "@trove/db";
import type { ItemEventRow, ItemRow } from "./items.repository.ts";

export interface Scope {
  status: string;
  tagSlugs: string[];
  collectionIds: string[];
}

/** An item's scope as its row stands: what key scopes and webhook scopes are matched against. */
export function scopeOf(r: ItemRow): Scope {
  return { status: r.status, tagSlugs: r.tag_list.map((t) => t.slug), collectionIds: r.collection_list.map((c) => c.id) };
}

export type ItemEventType =
  | "item.created"
  | "item.updated"
  | "item.deleted"
  | "item.tagged"
  | "item.untagged"
  | "item.collection_added"
  | "item.collection_removed";

export function itemEvent(type: ItemEventType, itemId: string, before: Scope | null, after: Scope | null, payload: Record<string, unknown>): ItemEventRow {
  return { id: newId(), type, itemId, changedAt: nowMillis(), beforeScope: before, afterScope: after, payload };
}

/** Events for one change of an item, from its scope before and after plus the plain fields that changed. */
export function changeEvents(itemId: string, before: Scope, after: Scope, changedFields: string[]): ItemEventRow[] {
  const events: ItemEventRow[] = [];
  const added = (a: string[], b: string[]) => b.filter((x) => !a.includes(x));
  if (changedFields.length > 0) events.push(itemEvent("item.updated", itemId, before, after, { changedFields }));
  const tagsAdded = added(before.tagSlugs, after.tagSlugs);
  const tagsRemoved = added(after.tagSlugs, before.tagSlugs);
  if (tagsAdded.length > 0) events.push(itemEvent("item.tagged", itemId, before, after, { changedFields: ["tags"], tagSlugsAdded: tagsAdded }));
  if (tagsRemoved.length > 0) events.push(itemEvent("item.untagged", itemId, before, after, { changedFields: ["tags"], tagSlugsRemoved: tagsRemoved }));
  const colsAdded = added(before.collectionIds, after.collectionIds);
  const colsRemoved = added(after.collectionIds, before.collectionIds);
  if (colsAdded.length > 0) {
    events.push(itemEvent("item.collection_added", itemId, before, after, { changedFields: ["collections"], collectionIdsAdded: colsAdded }));
  }
  if (colsRemoved.length > 0) {
    events.push(itemEvent("item.collection_removed", itemId, before, after, { changedFields: ["collections"], collectionIdsRemoved: colsRemoved }));
  }
  return events;
}
