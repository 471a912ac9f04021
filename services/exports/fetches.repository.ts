// The pages imports leave to fetch (entries saved without content) and how each fetch ended. When a fetch runs,
// and how politely, is the work queue's business (a `page-fetch` job per page, grouped by host).
import type { Kysely } from "kysely";
import type { UnitOfWork } from "@trove/db";

export interface FetchCounts {
  pending: number;
  fetched: number;
  failed: number;
}

export class FetchesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The same statements on a unit of work's transaction. */
  on(uow: UnitOfWork): FetchesRepository {
    return new FetchesRepository(uow.db);
  }

  /** Records pages to fetch; answers those not recorded before (a batch written again adds nothing twice). */
  async add(jobId: string, fetches: { itemId: string; host: string }[]): Promise<{ itemId: string; host: string }[]> {
    if (fetches.length === 0) return [];
    const added = await this.db
      .insertInto("exports.fetches")
      .values(fetches.map((f) => ({ job_id: jobId, item_id: f.itemId, host: f.host, state: "pending" })))
      .onConflict((oc) => oc.columns(["job_id", "item_id"]).doNothing())
      .returning(["item_id", "host"])
      .execute();
    return added.map((r) => ({ itemId: r.item_id as string, host: r.host as string }));
  }

  /** How a fetch ended: `done`, or `failed` with its reason. */
  async finish(jobId: string, itemId: string, ok: boolean, reason: string | null): Promise<void> {
    await this.db.updateTable("exports.fetches").set({ state: ok ? "done" : "failed", reason }).where("job_id", "=", jobId).where("item_id", "=", itemId).execute();
  }

  /** Fetch counts per job, by state. */
  async counts(jobIds: string[]): Promise<Map<string, FetchCounts>> {
    const out = new Map<string, FetchCounts>();
    if (jobIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("exports.fetches")
      .select(["job_id", "state", (eb) => eb.fn.countAll<number>().as("n")])
      .where("job_id", "in", jobIds)
      .groupBy(["job_id", "state"])
      .execute();
    for (const r of rows) {
      const c = out.get(r.job_id as string) ?? { pending: 0, fetched: 0, failed: 0 };
      const n = Number(r.n);
      if (r.state === "done") c.fetched += n;
      else if (r.state === "failed") c.failed += n;
      else c.pending += n;
      out.set(r.job_id as string, c);
    }
    return out;
  }
}
