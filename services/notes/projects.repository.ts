// Every query of projects and of the repository keys they claim. Kysely only; the owner's account id is part of
// every signature.
import { sql, type Kysely } from "kysely";

export type ProjectState = "active" | "paused" | "completed";

export interface ProjectRow {
  id: string;
  account_id: string;
  name: string;
  description: string;
  color: string | null;
  state: ProjectState;
  /** As given (deduplicated by key). */
  repositories: string[];
  archived_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProjectFields {
  name: string;
  description: string;
  color: string | null;
  state: ProjectState;
  repositories: string[];
}

/** Who holds a repository key: a live project of the account (an archived one holds none). */
export interface RepositoryOwner {
  id: string;
  name: string;
  description: string;
  state: ProjectState;
}

const table = "notes.projects";
const claims = "notes.project_repositories";

// int8 columns may come back as strings (pg without the parser); JSON as arrays.
const rowOf = (r: Record<string, unknown>): ProjectRow => ({
  ...(r as unknown as ProjectRow),
  archived_at: r.archived_at == null ? null : Number(r.archived_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

const columns = (f: Partial<ProjectFields>) => ({
  ...f,
  ...(f.repositories === undefined ? {} : { repositories: JSON.stringify(f.repositories) }),
});

export class ProjectsRepository {
  constructor(private readonly db: Kysely<any>) {}

  async transaction<T>(fn: (repo: ProjectsRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new ProjectsRepository(trx)));
  }

  async insert(accountId: string, id: string, f: ProjectFields, now: number): Promise<ProjectRow> {
    const row = await this.db
      .insertInto(table)
      .values({ id, account_id: accountId, ...columns(f), created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return rowOf(row);
  }

  async get(accountId: string, id: string): Promise<ProjectRow | undefined> {
    const row = await this.db.selectFrom(table).selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row && rowOf(row);
  }

  /** The project, locked until the transaction ends: a change and an archive of one project take turns. */
  async lock(accountId: string, id: string): Promise<ProjectRow | undefined> {
    const row = await this.db.selectFrom(table).selectAll().where("account_id", "=", accountId).where("id", "=", id).forUpdate().executeTakeFirst();
    return row && rowOf(row);
  }

  async exists(accountId: string, id: string): Promise<boolean> {
    const row = await this.db.selectFrom(table).select("id").where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row !== undefined;
  }

  async update(accountId: string, id: string, f: Partial<ProjectFields> & { archived_at?: number }, now: number): Promise<ProjectRow> {
    const row = await this.db
      .updateTable(table)
      .set({ ...columns(f), updated_at: now })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return rowOf(row);
  }

  /** Projects, most recently updated first; archived ones only when asked. */
  async list(accountId: string, q: { includeArchived: boolean; limit: number; offset: number }): Promise<{ rows: ProjectRow[]; count: number }> {
    let base = this.db.selectFrom(table).where("account_id", "=", accountId);
    if (!q.includeArchived) base = base.where("archived_at", "is", null);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy("updated_at", "desc").orderBy("id", "desc").limit(q.limit).offset(q.offset).execute(),
      base.select(sql<string>`count(*)`.as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(rowOf), count: Number(total.n) };
  }

  /**
   * Claims repository keys for a project. The primary key (account_id, repo_key) decides between racing claims:
   * a key another transaction holds (or is inserting) is skipped once that one commits. Answers the keys this call
   * did not insert (held by someone, this project included).
   */
  async claim(accountId: string, projectId: string, keys: string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const inserted = await this.db
      .insertInto(claims)
      .values(keys.map((k) => ({ account_id: accountId, repo_key: k, project_id: projectId })))
      .onConflict((oc) => oc.columns(["account_id", "repo_key"]).doNothing())
      .returning("repo_key")
      .execute();
    const got = new Set(inserted.map((r) => r.repo_key as string));
    return keys.filter((k) => !got.has(k));
  }

  /** Which project holds each of these keys now. */
  async holders(accountId: string, keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db.selectFrom(claims).select(["repo_key", "project_id"]).where("account_id", "=", accountId).where("repo_key", "in", keys).execute();
    return new Map(rows.map((r) => [r.repo_key as string, r.project_id as string]));
  }

  /** Gives up the project's keys, except `keep`. */
  async release(accountId: string, projectId: string, keep: string[] = []): Promise<void> {
    let q = this.db.deleteFrom(claims).where("account_id", "=", accountId).where("project_id", "=", projectId);
    if (keep.length > 0) q = q.where("repo_key", "not in", keep);
    await q.execute();
  }

  /** The live project that holds a repository key. */
  async ownerOf(accountId: string, key: string): Promise<RepositoryOwner | undefined> {
    const row = await this.db
      .selectFrom(`${claims} as c`)
      .innerJoin(`${table} as p`, "p.id", "c.project_id")
      .select(["p.id", "p.name", "p.description", "p.state"])
      .where("c.account_id", "=", accountId)
      .where("c.repo_key", "=", key)
      .where("p.account_id", "=", accountId)
      .where("p.archived_at", "is", null)
      .executeTakeFirst();
    return row as RepositoryOwner | undefined;
  }
}
