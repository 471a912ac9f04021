// Which keys may call which operation. 403 is only for a missing permission; scope is enforced by the services.
import type { Caller, Operation } from "@trove/contracts";

const personalOnly = new Set(["clients.manage", "webhooks.manage", "changes.read"]);

export function permits(caller: Caller, op: Operation): boolean {
  if (op.permission === null || caller.keyKind === "personal") return true;
  if (personalOnly.has(op.permission)) return false;
  if (caller.access === "read_only") return op.method === "GET" && op.permission !== "sources.write";
  return true;
}
