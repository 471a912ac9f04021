// A scoped key's part of the library as the items service enforces it: what needs the whole library is refused,
// and a save never reaches an item outside the scope (a new item joins it: scope-placement.ts). Which items a key
// sees is applied by the repository (`scope` in every read).
import { isScoped, type Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";

/** Refuses a scoped caller what changes the whole library or the definitions its scopes are made of. */
export function requireWholeLibrary(caller: Caller, what: string): void {
  if (isScoped(caller)) throw new AppError("forbidden", `${what} works on the whole library: a key scoped to a tag or collection cannot do it`);
}

/** A save of a URL whose item is outside the caller's scope: refused, naming nothing of the item. */
export const outsideScope = (): AppError =>
  new AppError("outside_scope", "this URL cannot be saved with this key: it is saved in the library outside the key's scope");
