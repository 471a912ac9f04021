// A unit of work: one transaction, and what must happen once it has committed (wake the event relay, wake the
// queue's workers). The service that makes the change owns it; repositories only run statements on `uow.db`.
// Hooks run after the commit and never after a rollback, so a poke can never announce a change that did not
// happen. A unit of work begun inside another one joins it: one transaction, its hooks run after the outer commit.
// Hooks may also run just before the commit, inside the transaction, to write what many parts of a change gathered.
import type { Kysely } from "kysely";
import { createLogger, type Logger } from "@trove/log";

export interface UnitOfWork {
  /** The transaction: every statement of the change runs on it. */
  readonly db: Kysely<any>;
  /** Runs `hook` after the commit (never after a rollback), in the order given; a throwing hook is logged, never rethrown. */
  afterCommit(hook: () => void): void;
  /**
   * Runs `hook` in the transaction once the change's own work is done, before the commit, in the order given:
   * writes gathered from many parts of one change (the ends of a batch of jobs) go out as one statement. A hook
   * that throws rolls the whole unit of work back.
   */
  beforeCommit(hook: () => Promise<void>): void;
}

export interface UnitOfWorkOptions {
  /** Where a throwing hook is reported (the service's logger); hooks are pokes, so a throw is a bug to see. */
  log?: Pick<Logger, "error">;
}

type State = "open" | "committed" | "rolled back";

class Work implements UnitOfWork {
  private readonly hooks: (() => void)[] = [];
  private readonly closing: (() => Promise<void>)[] = [];
  state: State = "open";

  constructor(readonly db: Kysely<any>) {}

  beforeCommit(hook: () => Promise<void>): void {
    if (this.state !== "open") throw new Error(`beforeCommit on a unit of work already ${this.state}`);
    this.closing.push(hook);
  }

  /** The before-commit hooks, those added by a hook included. */
  async close(): Promise<void> {
    for (let hook = this.closing.shift(); hook; hook = this.closing.shift()) await hook();
  }

  afterCommit(hook: () => void): void {
    // A hook added after the end would either never run or run for a change already announced: a bug either way.
    if (this.state !== "open") throw new Error(`afterCommit on a unit of work already ${this.state}`);
    this.hooks.push(hook);
  }

  runHooks(log: Pick<Logger, "error">): void {
    for (const hook of this.hooks.splice(0)) {
      try {
        const result: unknown = hook();
        // A hook is typed synchronous; one that is not must not leave its rejection unhandled.
        if (result instanceof Promise) result.catch((err: unknown) => log.error({ err }, "an after-commit hook failed; the commit stands"));
      } catch (err) {
        log.error({ err }, "an after-commit hook failed; the commit stands");
      }
    }
  }
}

let fallbackLog: Logger | undefined;

function isUnitOfWork(db: Kysely<any> | UnitOfWork): db is UnitOfWork {
  return "afterCommit" in db;
}

/** Runs `fn` in one transaction; called with a unit of work instead of a database, it joins that unit of work. */
export async function inTransaction<T>(db: Kysely<any> | UnitOfWork, fn: (uow: UnitOfWork) => Promise<T>, opts: UnitOfWorkOptions = {}): Promise<T> {
  if (isUnitOfWork(db)) return fn(db);
  // A bare transaction cannot tell us when it commits, so hooks added to it could run before the commit.
  if (db.isTransaction) throw new Error("inTransaction was given a transaction: pass its unit of work, so that hooks run after its commit");
  let work: Work | undefined;
  try {
    const result = await db.transaction().execute(async (trx) => {
      work = new Work(trx);
      const out = await fn(work);
      await work.close();
      return out;
    });
    work!.state = "committed";
    work!.runHooks(opts.log ?? (fallbackLog ??= createLogger("error", { component: "unit-of-work" })));
    return result;
  } catch (err) {
    // fn threw, or the commit itself failed (a deferred constraint, a lost connection): nothing to announce.
    if (work && work.state === "open") work.state = "rolled back";
    throw err;
  }
}
