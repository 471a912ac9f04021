// Plan usage: items added per account and period ('lifetime' and the calendar month), the plan limit, and the
// one atomic step that counts a new item inside the transaction that inserts it.
import type { Caller, SyncDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { nowSeconds } from "@trove/db";
import type { ItemsRepository } from "./items.repository.ts";

export const monthKey = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 7);

export type Usage = Awaited<ReturnType<UsageService["usage"]>>;

export class UsageService {
  constructor(private readonly repo: ItemsRepository) {}

  async usage(caller: Caller) {
    const month = monthKey(nowSeconds());
    const counts = await this.repo.usage(caller.accountId, ["lifetime", month]);
    const lifetime = counts.lifetime ?? 0;
    const monthCount = counts[month] ?? 0;
    // A billing cycle is the calendar month (UTC).
    const period = caller.plan.limitScope === "billing_cycle" ? monthCount : lifetime;
    return {
      plan: caller.plan.name,
      limitScope: caller.plan.limitScope,
      linkLimit: caller.plan.linkLimit,
      linkCount: period,
      linkCountMonth: monthCount,
      linkCountPeriod: period,
      linkCountLifetime: lifetime,
      linkCountMonthKey: month,
    };
  }

  /** Inside the inserting transaction: counts the new item, or answers false when the plan is full. */
  async countNew(tx: ItemsRepository, caller: Caller, now: number): Promise<boolean> {
    const month = monthKey(now);
    const limited = caller.plan.limitScope === "billing_cycle" ? month : "lifetime";
    if (!(await tx.countUpWithin(caller.accountId, limited, caller.plan.linkLimit))) return false;
    await tx.countUp(caller.accountId, [limited === month ? "lifetime" : month]);
    return true;
  }

  /**
   * Gives back the count of an item withdrawn by the save that added it. `countedAt` is the time countNew was
   * given, not the item's createdAt: an imported item is created in the past but counted in the month it arrived.
   */
  giveBack(tx: ItemsRepository, accountId: string, countedAt: number): Promise<void> {
    return tx.countDown(accountId, ["lifetime", monthKey(countedAt)]);
  }

  /** Refuses a save that would pass the plan limit: 429 quota_reached with the plan and the sync summary. */
  async ensureRoom(caller: Caller): Promise<void> {
    const usage = await this.usage(caller);
    if (usage.linkCount >= caller.plan.linkLimit) throw quotaReached(caller, usage);
  }

  async quotaError(caller: Caller): Promise<AppError> {
    return quotaReached(caller, await this.usage(caller));
  }

  /** The sync summary of one received URL, from the plan usage after it. */
  async sync(caller: Caller, added: boolean): Promise<SyncDto> {
    return syncOf(await this.usage(caller), added, 1);
  }
}

function quotaReached(caller: Caller, usage: Usage): AppError {
  const per = caller.plan.limitScope === "billing_cycle" ? "billing cycle" : "lifetime";
  return new AppError("quota_reached", `the ${caller.plan.name} plan holds ${caller.plan.linkLimit} items per ${per}`, {
    plan: caller.plan.name,
    limitScope: caller.plan.limitScope,
    linkLimit: caller.plan.linkLimit,
    linkCount: usage.linkCount,
    sync: syncOf(usage, false, 0),
  });
}

function syncOf(u: Usage, added: boolean, accepted: number): SyncDto {
  return {
    received: 1,
    accepted,
    upserted: accepted,
    added: added ? 1 : 0,
    skipped: 1 - accepted,
    linkLimit: u.linkLimit,
    linkCount: u.linkCount,
    linkCountLifetime: u.linkCountLifetime,
    linkCountPeriod: u.linkCountPeriod,
    linkCountMonth: u.linkCountMonth,
    linkCountMonthKey: u.linkCountMonthKey,
    limitReached: u.linkCount >= u.linkLimit,
  };
}
