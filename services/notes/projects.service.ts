// Projects: create, read, change and archive; which project owns a repository. One repository key belongs to at
// most one live project of an account: a claim on a key another live project holds answers 409 repository_claimed,
// and archiving a project frees its keys.
import type { Caller } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import type { ProjectFields, ProjectRow, ProjectState, ProjectsRepository, RepositoryOwner } from "./projects.repository.ts";
import { repositoryKey } from "./repository-address.ts";

interface ProjectInput {
  name?: string;
  description?: string;
  color?: string | null;
  state?: ProjectState;
  repositories?: string[];
}

/** Repositories as given (trimmed), one per key, and those keys in the same order. */
interface Addresses {
  repositories: string[];
  keys: string[];
}

/** A racing archive can free a key between our insert and our look at its holder; then the claim is tried again. */
const claimAttempts = 5;

export class ProjectsService {
  constructor(private readonly repo: ProjectsRepository) {}

  /** True when `id` names a live or archived project of the account (a note's `project` must). */
  async exists(accountId: string, id: string): Promise<boolean> {
    return this.repo.exists(accountId, id);
  }

  /** The live project of the account that holds a repository key (for the context brief). */
  async ownerOf(accountId: string, key: string): Promise<RepositoryOwner | undefined> {
    return this.repo.ownerOf(accountId, key);
  }

  async list(caller: Caller, q: { includeArchived?: boolean; limit: number; offset: number }) {
    const { rows, count } = await this.repo.list(caller.accountId, { includeArchived: q.includeArchived === true, limit: q.limit, offset: q.offset });
    return { projects: rows.map(projectOf), limit: q.limit, offset: q.offset, count };
  }

  async get(caller: Caller, id: string) {
    const row = await this.repo.get(caller.accountId, id);
    if (!row) throw notFound();
    return { project: projectOf(row) };
  }

  async create(caller: Caller, body: ProjectInput & { name: string }) {
    const addresses = addressesOf(body.repositories ?? []);
    const fields: ProjectFields = {
      name: nameOf(body.name),
      description: body.description ?? "",
      color: body.color ?? null,
      state: body.state ?? "active",
      repositories: addresses.repositories,
    };
    const id = newId();
    const row = await this.repo.transaction(async (tx) => {
      const made = await tx.insert(caller.accountId, id, fields, nowSeconds());
      await claim(tx, caller.accountId, id, addresses);
      return made;
    });
    return { project: projectOf(row) };
  }

  async update(caller: Caller, id: string, body: ProjectInput) {
    const changes: Partial<ProjectFields> = {};
    if (body.name !== undefined) changes.name = nameOf(body.name);
    if (body.description !== undefined) changes.description = body.description;
    if (body.color !== undefined) changes.color = body.color;
    if (body.state !== undefined) changes.state = body.state;
    const addresses = body.repositories === undefined ? undefined : addressesOf(body.repositories);
    if (addresses) changes.repositories = addresses.repositories;
    const row = await this.repo.transaction(async (tx) => {
      const project = await tx.lock(caller.accountId, id);
      if (!project) throw notFound();
      if (project.archived_at !== null) throw new AppError("invalid_state", "the project is archived; an archived project does not change");
      if (Object.keys(changes).length === 0) return project;
      if (addresses) {
        await tx.release(caller.accountId, id, addresses.keys);
        await claim(tx, caller.accountId, id, addresses);
      }
      return tx.update(caller.accountId, id, changes, nowSeconds());
    });
    return { project: projectOf(row) };
  }

  /** Archives the project and frees its repositories; its notes keep pointing at it. Archiving again answers it. */
  async archive(caller: Caller, id: string) {
    const row = await this.repo.transaction(async (tx) => {
      const project = await tx.lock(caller.accountId, id);
      if (!project) throw notFound();
      if (project.archived_at !== null) return project;
      await tx.release(caller.accountId, id);
      const now = nowSeconds();
      return tx.update(caller.accountId, id, { archived_at: now }, now);
    });
    return { project: projectOf(row) };
  }
}

/**
 * Claims every key for the project inside the caller's transaction. A key held by another live project throws 409
 * repository_claimed (the transaction then rolls back, so nothing of the write stays).
 */
async function claim(tx: ProjectsRepository, accountId: string, projectId: string, a: Addresses): Promise<void> {
  let pending = a.keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === claimAttempts) throw new AppError("service_unavailable", "the repositories are changing hands; try again");
    // In one order everywhere, so two claims of overlapping sets wait for each other instead of deadlocking.
    const missed = await tx.claim(accountId, projectId, [...pending].sort());
    const holders = await tx.holders(accountId, missed);
    for (const key of missed) {
      const holder = holders.get(key);
      if (holder === undefined || holder === projectId) continue;
      const repository = a.repositories[a.keys.indexOf(key)]!;
      throw new AppError("repository_claimed", `${repository} belongs to another project (${holder}); archive it or remove the repository from it first`, {
        projectId: holder,
        repository,
        repositoryKey: key,
      });
    }
    // Keys nobody holds any more were freed while we looked: claim those again.
    pending = missed.filter((k) => !holders.has(k));
  }
}

function addressesOf(list: string[]): Addresses {
  const byKey = new Map<string, string>();
  for (const raw of list) {
    const address = raw.trim();
    const key = repositoryKey(address);
    if (key === null) {
      throw new AppError("validation_failed", `not a repository address: ${JSON.stringify(raw)}`, {
        fields: { repositories: `${JSON.stringify(raw)} is not a repository address (https://host/owner/name, git@host:owner/name.git or host/owner/name)` },
      });
    }
    if (!byKey.has(key)) byKey.set(key, address);
  }
  return { repositories: [...byKey.values()], keys: [...byKey.keys()] };
}

function nameOf(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw new AppError("validation_failed", "a project needs a name", { fields: { name: "must not be blank" } });
  return trimmed;
}

const notFound = () => new AppError("not_found", "project not found");

export function projectOf(r: ProjectRow) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    color: r.color,
    state: r.state,
    repositories: r.repositories,
    archived: r.archived_at !== null,
    archivedAt: r.archived_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
