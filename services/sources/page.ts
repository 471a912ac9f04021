// The sources service's lists (sources, events, messages): one page of a filtered table, newest first by a time
// column then id (ids are time-ordered, so equal times keep their order), with the count of every matching row.
import type { SelectQueryBuilder } from "kysely";

export async function newestFirstPage<Row>(
  base: SelectQueryBuilder<any, any, {}>,
  timeColumn: string,
  limit: number,
  offset: number,
): Promise<{ rows: Row[]; count: number }> {
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy(timeColumn, "desc").orderBy("id", "desc").limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as Row[], count: Number(total.n) };
}
