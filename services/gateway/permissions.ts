// Which keys may call which operation: the rule lives in the contract (libs/contracts/permissions.ts), so the
// services apply the same one. 403 is only for a missing permission; scope is enforced by the services.
export { holds, isScoped, permits } from "@trove/contracts";
