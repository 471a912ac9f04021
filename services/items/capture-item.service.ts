// items.internal.captureItem: fetches and extracts an existing item's page now (an imported item without
// content), SSRF-guarded like a save. Whatever happens the item stays: a refused or failed capture records
// contentExtractError on it (and keeps any content it had) and answers the reason.
import type { Caller, CaptureItemReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId } from "@trove/db";
import type { Capture, ContentCapture } from "./capture.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";

export class CaptureItemService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly events: ItemEvents,
    private readonly captures: ContentCapture,
  ) {}

  async captureItem(caller: Caller, payload: unknown): Promise<CaptureItemReply> {
    if (caller.access !== "read_write") throw new AppError("forbidden", "capturing an item needs a read-write key");
    const itemId = (payload as { itemId?: unknown } | null)?.itemId;
    if (typeof itemId !== "string" || itemId === "" || itemId.length > 200) {
      throw new AppError("validation_failed", "captureItem: itemId must be an item id", { fields: { itemId: "must be an item id" } });
    }
    const row = await this.items.getById(caller.accountId, itemId, { scope: caller.scope });
    if (!row) {
      if (await this.events.wasDeleted(caller.accountId, itemId)) return { outcome: "gone" };
      throw new AppError("not_found", "item not found");
    }
    // Taken before the fetch: a capture that starts later (a browser save) wins over this one.
    const captureId = newId();
    const fetched = await this.captures.capture(row.url, undefined);
    // Unlike a save, a refusal keeps the item (an imported bookmark of a private address stays a bookmark).
    const capture: Capture = fetched.ok || !fetched.refused ? fetched : { ok: false, error: `url_not_allowed: ${fetched.error}` };
    const stored = await this.items.transaction((tx, uow) =>
      this.captures.storeIn(tx, uow, caller.accountId, itemId, capture, captureId, { announce: true, keepTitle: !placeholderTitle(row) }),
    );
    // Not stored: the item was deleted meanwhile, or a newer capture's content is already there.
    if (!stored && !(await this.items.getById(caller.accountId, itemId))) return { outcome: "gone" };
    return capture.ok ? { outcome: "stored" } : { outcome: "failed", reason: capture.error };
  }
}

/** A title the item got only for want of one (its host): the page's own title replaces it. */
function placeholderTitle(r: ItemRow): boolean {
  return r.title === "" || r.title === new URL(r.url).hostname;
}
