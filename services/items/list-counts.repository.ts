// The `count` of the common list pages from the counter rows the triggers of migration 2026-11-27T1000 append
// (docs/decisions.md, "List counts (counter rows)"): all the account's items, one tag's or one collection's, by
// status. Any other filter counts the items themselves.
import { sql, type Kysely } from "kysely";
import type { ItemFilter } from "./item-filter.ts";

/** Counter rows of one list past which a read folds them into one (a sum of 256 index entries stays well under 1 ms). */
const foldPast = 256;

export class ListCountsRepository {
  /** Lists being folded by this process, so a burst of reads starts one fold. */
  private static readonly folding = new Set<string>();
  /** Where a failed fold is reported (the service's log); the rows stay as they were, the counts exact. */
  static onFoldError: (err: unknown) => void = () => {};

  constructor(private readonly db: Kysely<any>) {}

  /**
   * The count of the list the filter asks for, or undefined when the filter is not one the counters keep:
   * statuses with at most one tag or one collection (the filter's and the key scope's together).
   */
  async count(accountId: string, f: ItemFilter): Promise<number | undefined> {
    const list = this.listOf(accountId, f);
    if (list === undefined) return undefined;
    const statuses = f.statuses && f.statuses.length > 0 ? f.statuses : null;
    const { rows } = await sql<{ n: string | null; parts: string; key: string | null }>`
      select sum(n) as n, count(*) as parts, min(list) as key from items.list_counts
      where account_id = ${accountId} and list = (${list})
        and (${statuses}::text[] is null or status = any(${statuses}::text[]))`.execute(this.db);
    const row = rows[0]!;
    // Not from inside a transaction: the fold runs after this request, when that transaction is gone.
    if (Number(row.parts) > foldPast && row.key !== null && !this.db.isTransaction) this.foldLater(accountId, row.key);
    return Number(row.n ?? 0);
  }

  /** The account's items by status (every status with items). */
  async byStatus(accountId: string): Promise<Record<string, number>> {
    const { rows } = await sql<{ status: string; n: string }>`
      select status, sum(n) as n from items.list_counts where account_id = ${accountId} and list = '' group by status having sum(n) <> 0`.execute(this.db);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /**
   * The list key as SQL, or undefined when the filter needs the items counted. A key scoped to one tag or one
   * collection lists that tag's or collection's items, so its lists are kept too.
   */
  private listOf(accountId: string, f: ItemFilter) {
    const { statuses: _statuses, tagSlugs, collectionId, scope, ...rest } = f;
    const narrowed = Object.values(rest).some((v) => v !== undefined && v !== null && v !== false);
    if (narrowed) return undefined;
    let tags = [...new Set(tagSlugs ?? [])];
    let collection = collectionId;
    if (scope) {
      const scopeTags = [...new Set(scope.tagSlugs ?? [])];
      if (scopeTags.length > 1) return undefined;
      if (scopeTags.length === 1) {
        if (tags.some((t) => t !== scopeTags[0])) return undefined;
        tags = scopeTags;
      }
      if (scope.collectionId) {
        if (collection !== undefined && collection !== scope.collectionId) return undefined;
        collection = scope.collectionId;
      }
    }
    if (tags.length > 1 || (tags.length === 1 && collection !== undefined)) return undefined;
    // An unknown tag is no list ('t:' alone matches no row): its count is 0, as its page is empty.
    if (tags.length === 1) return sql`'t:' || coalesce((select id from items.tags where account_id = ${accountId} and slug = ${tags[0]}), '')`;
    if (collection !== undefined) return sql`${"c:" + collection}::text`;
    return sql`''::text`;
  }

  /** Folds a list's rows into one per status, after the read that found them many (never on the request path). */
  private foldLater(accountId: string, list: string): void {
    const key = `${accountId}\n${list}`;
    if (ListCountsRepository.folding.has(key)) return;
    ListCountsRepository.folding.add(key);
    setTimeout(() => {
      this.fold(accountId, list)
        .catch((err) => ListCountsRepository.onFoldError(err))
        .finally(() => ListCountsRepository.folding.delete(key));
    }, 0);
  }

  /**
   * Replaces a list's rows by their sums, in one statement: rows appended meanwhile are not among those deleted,
   * and a second fold of the same list at the same time (another process) does not get the lock and skips: two
   * deletes of the same rows, taking their locks in different orders, could deadlock.
   */
  async fold(accountId: string, list: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(${accountId}), hashtext(${list})) as ok`.execute(trx);
      if (!rows[0]?.ok) return;
      await sql`with gone as (
          delete from items.list_counts where account_id = ${accountId} and list = ${list} returning status, n
        )
        insert into items.list_counts (account_id, list, status, n)
        select ${accountId}, ${list}, status, sum(n) from gone group by status having sum(n) <> 0`.execute(trx);
    });
  }
}
