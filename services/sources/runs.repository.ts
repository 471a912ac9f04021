// Recording a run's outcome on its source: status fields, cursors, the next poll time. Which replica runs a source,
// and whether it still holds it, is the work queue's (the write runs in the unit of work that ends the poll's job).
import { sql, type Kysely } from "kysely";
import type { SourceRow } from "./sources.repository.ts";

export interface RunOutcome {
  now: number;
  ok: boolean;
  /** Failures count toward backoff; an unconfigured source (X without a bridge) is checked again later instead. */
  lastError: string | null;
  consecutiveFailures: number;
  nextPollAt: number;
  itemsAdded: number;
  cursors: Record<string, unknown>;
  /** The feed's title, when it becomes the source's name. */
  name?: string;
}

const table = "sources.sources";

export class RunsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /**
   * Records a run; answers the source as it now is (undefined: deleted meanwhile). A source paused during the run
   * keeps no poll time; the item count grows by what the run added.
   */
  async finish(id: string, o: RunOutcome): Promise<SourceRow | undefined> {
    return (await this.db
      .updateTable(table)
      .set({
        last_run_at: o.now,
        ...(o.ok ? { last_success_at: o.now } : {}),
        last_error: o.lastError,
        consecutive_failures: o.consecutiveFailures,
        next_poll_at: sql`case when status = 'syncing' then ${o.nextPollAt}::int8 else null end`,
        item_count: sql`item_count + ${o.itemsAdded}::int8`,
        cursors: JSON.stringify(o.cursors),
        ...(o.name !== undefined ? { name: o.name } : {}),
      })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst()) as SourceRow | undefined;
  }
}
