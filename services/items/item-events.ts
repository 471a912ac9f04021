// The items' events in the database's event log (stream "items"): each change records its item events, and a
// deleted tag its tag.deleted, in the change's own unit of work; the change stream reads the item events back by
// account in position (commit) order. What a consumer receives is the recorded message plus its position.
import {
  itemEventSubject,
  itemEventsFilter,
  tagDeletedSubject,
  type ItemEventMessage,
  type ItemEventType,
  type ItemScope,
  type TagDeletedEvent,
} from "@trove/contracts";
import { newId, type UnitOfWork } from "@trove/db";
import type { Events, LoggedEvent } from "@trove/eventlog";

/** The log's stream the items record into. */
export const itemsStream = "items";

/** One item event of a change, before it is recorded. */
export interface ItemEventRow {
  id: string;
  type: ItemEventType;
  itemId: string;
  /** Unix ms. */
  changedAt: number;
  beforeScope: ItemScope | null;
  afterScope: ItemScope | null;
  payload: Record<string, unknown>;
}

/** What the subjects of item events (not tag.deleted) start with: what the change stream walks. */
const itemEventSubjects = itemEventsFilter.slice(0, -1);
const deletedSubject = itemEventSubject("item.deleted");

export class ItemEvents {
  constructor(private readonly log: Events) {}

  /** Records a change's item events in its unit of work, in order. */
  async record(uow: UnitOfWork, accountId: string, events: ItemEventRow[]): Promise<void> {
    await this.log.recordMany(
      uow,
      events.map((e) => ({
        id: e.id,
        stream: itemsStream,
        subject: itemEventSubject(e.type),
        accountId,
        key: e.itemId,
        at: e.changedAt,
        data: { ...messageOf(accountId, e) },
      })),
    );
  }

  /** Records a tag's deletion in its unit of work; answers the event notes receives. */
  async recordTagDeleted(uow: UnitOfWork, accountId: string, slug: string): Promise<TagDeletedEvent> {
    const event: TagDeletedEvent = { id: newId(), accountId, slug, deletedAt: Date.now() };
    await this.log.record(uow, { id: event.id, stream: itemsStream, subject: tagDeletedSubject, accountId, key: slug, at: event.deletedAt, data: { ...event } });
    return event;
  }

  /** Events committed so far get their positions (the change stream reads its own writes). */
  assignPositions(): Promise<void> {
    return this.log.assignPositions();
  }

  /** The account's item events after a position, oldest first. */
  async after(accountId: string, position: number, limit: number): Promise<ItemEventMessage[]> {
    return (await this.log.page(itemsStream, accountId, position, limit, { subjectPrefix: itemEventSubjects })).map(itemEventOf);
  }

  /** The position just before the account's first event at or after a time (ms); a walk starts after it. */
  positionBefore(accountId: string, changedAtMs: number): Promise<number> {
    return this.log.positionBefore(itemsStream, accountId, changedAtMs);
  }

  /** True when the account's item was deleted (its item.deleted event is kept), as opposed to never existing. */
  wasDeleted(accountId: string, itemId: string): Promise<boolean> {
    return this.log.exists(accountId, deletedSubject, itemId);
  }
}

/** An item event as consumers and the change stream see it: the recorded message with its position. */
export function itemEventOf(e: LoggedEvent): ItemEventMessage {
  return e.data as unknown as ItemEventMessage;
}

/** The message an item event is recorded as (the log adds `position`). */
function messageOf(accountId: string, e: ItemEventRow): Omit<ItemEventMessage, "position"> {
  return {
    id: e.id,
    accountId,
    type: e.type,
    itemId: e.itemId,
    changedAt: e.changedAt,
    beforeScope: e.beforeScope,
    afterScope: e.afterScope,
    payload: e.payload,
  };
}
