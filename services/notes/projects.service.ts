// Projects: create, read, change and archive; which project owns a repository. (Stub: filled in by the projects work.)
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { Kysely } from "kysely";

const todo = () => new AppError("internal_error", "projects are not built yet");

export class ProjectsService {
  constructor(private readonly db: Kysely<any>) {}

  /** True when `id` names a live or archived project of the account (a note's `project` must). */
  async exists(accountId: string, id: string): Promise<boolean> {
    const row = await this.db.selectFrom("notes.projects").select("id").where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return row !== undefined;
  }

  async list(_caller: Caller, _q: { includeArchived?: boolean; limit: number; offset: number }): Promise<never> {
    throw todo();
  }
  async get(_caller: Caller, _id: string): Promise<never> {
    throw todo();
  }
  async create(_caller: Caller, _body: unknown): Promise<never> {
    throw todo();
  }
  async update(_caller: Caller, _id: string, _body: unknown): Promise<never> {
    throw todo();
  }
  async archive(_caller: Caller, _id: string): Promise<never> {
    throw todo();
  }
}
