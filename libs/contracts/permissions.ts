// Which keys hold which permission: the one rule the gateway (403 on a route) and the services (what a reply may
// show, like the notes connected to an item) both apply. Which items a scoped key sees is the services' to enforce
// (they alone know an item's tags and collections); what needs the whole library is refused here and by them.
import type { Caller, HttpMethod, Operation, Permission } from "./operation.ts";

/** Source routes change what flows into the whole library: personal keys (or a session) only. */
const personalOnly = new Set<Permission>(["clients.manage", "webhooks.manage", "changes.read", "sources.write"]);

/**
 * A key scoped to a tag or a collection confines its client to part of the library. Notes, projects and sources
 * belong to no scope, so such a key holds none of their permissions.
 */
const outsideAnyScope = new Set<Permission>(["notes.read", "notes.write", "projects.read", "projects.write", "sources.read", "sources.write"]);

/** True when the key sees only part of the library (a tag or collection scope). */
export const isScoped = (caller: Caller): boolean => !!caller.scope && ((caller.scope.tagSlugs?.length ?? 0) > 0 || !!caller.scope.collectionId);

/** True when the caller may use `permission` with this HTTP method (read-only keys: GET only). */
export function holds(caller: Caller, permission: Permission, method: HttpMethod): boolean {
  if (caller.keyKind === "personal") return true;
  if (personalOnly.has(permission)) return false;
  if (isScoped(caller) && outsideAnyScope.has(permission)) return false;
  if (caller.access === "read_only") return method === "GET" && permission !== "sources.write";
  return true;
}

/** True when the caller may call the operation (403 otherwise). */
export function permits(caller: Caller, op: Pick<Operation, "permission" | "method" | "reads" | "wholeLibrary">): boolean {
  if (op.permission === null) return true;
  if (op.wholeLibrary && isScoped(caller)) return false;
  return holds(caller, op.permission, op.reads ? "GET" : op.method);
}
