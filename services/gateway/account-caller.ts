// The internal subject on which other services ask for the Caller of an account they act for without a request
// (the sources service adding a feed's entries). Only the gateway knows accounts and plans.
import type { Bus, Subscription } from "@trove/bus";
import { accountCallerSubject, type AccountCallerRequest, type Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { AccountsRepository } from "./accounts.repository.ts";

export function serveAccountCaller(bus: Bus, repo: AccountsRepository): Subscription {
  return bus.serve(accountCallerSubject, async (payload): Promise<Caller> => {
    const accountId = (payload as Partial<AccountCallerRequest> | null)?.accountId;
    if (typeof accountId !== "string" || accountId === "") throw new AppError("validation_failed", "accountId is required");
    const plan = await repo.planOf(accountId);
    if (!plan) throw new AppError("not_found", "no such account");
    // keyId names the internal actor: no key was presented (like the "tag.deleted" caller of notes).
    return {
      accountId,
      keyId: "internal.account",
      keyKind: "personal",
      access: "read_write",
      scope: null,
      plan: { name: plan.plan, linkLimit: Number(plan.linkLimit), limitScope: plan.limitScope },
    };
  });
}
