// The context brief's query: a repository's current notes, ranked in the database by path affinity, then recency.
// Kysely only; the owner's account id is part of every signature.
import { sql, type Kysely } from "kysely";

export interface BriefRow {
  id: string;
  title: string;
  description: string | null;
  kind: string | null;
  state: string | null;
  paths: string[];
  tags: string[];
  current_revision: number;
  updated_at: number;
  path_affinity: number;
}

export interface BriefQuery {
  /** The normalised repository key: notes whose own repository has it belong to the brief. */
  repositoryKey: string;
  /** The live project that holds the key: all its current notes belong to the brief. */
  projectId: string | undefined;
  /** A repository path without leading or trailing slashes, or null for recency alone. */
  path: string | null;
  limit: number;
  /** Characters of a description carried at most (one more is read, to tell that it was cut). */
  descriptionChars: number;
}

export class BriefRepository {
  constructor(private readonly db: Kysely<any>) {}

  /**
   * The top `limit` notes and how many there are. The score is computed per candidate row in SQL and only the top
   * rows come back (a top-N sort), so a project with any number of notes costs this process `limit` rows, and no
   * body is ever read.
   */
  async notes(accountId: string, q: BriefQuery): Promise<{ rows: BriefRow[]; count: number }> {
    const base = this.db
      .selectFrom("notes.notes as n")
      .where("n.account_id", "=", accountId)
      .where("n.archived_at", "is", null)
      .where((eb) => eb.or([eb("n.repository_key", "=", q.repositoryKey), ...(q.projectId === undefined ? [] : [eb("n.project_id", "=", q.projectId)])]));
    const [rows, total] = await Promise.all([
      base
        .select([
          "n.id",
          "n.title",
          "n.kind",
          "n.state",
          "n.paths",
          "n.tags",
          "n.current_revision",
          "n.updated_at",
          sql<string | null>`case when jsonb_typeof(n.properties -> 'description') = 'string' then left(n.properties ->> 'description', ${q.descriptionChars + 1}::int4) end`.as(
            "description",
          ),
          affinity(q.path).as("path_affinity"),
        ])
        .orderBy("path_affinity", "desc")
        .orderBy("n.updated_at", "desc")
        .orderBy("n.id", "desc")
        .limit(q.limit)
        .execute(),
      base.select(sql<string>`count(*)`.as("n")).executeTakeFirstOrThrow(),
    ]);
    return {
      rows: rows.map((r) => ({ ...(r as unknown as BriefRow), updated_at: Number(r.updated_at), path_affinity: Number(r.path_affinity) })),
      count: Number(total.n),
    };
  }
}

/**
 * How closely a note's paths match the requested path, 0-1 (the best of its paths): the path itself 1; a folder
 * inside the requested folder 0.75; a folder holding the path from 0.7 (its own folder) down towards 0.2 (the top
 * folder), by how many of the path's folders it spans; anything else 0. A trailing slash does not matter.
 */
function affinity(path: string | null) {
  if (path === null) return sql<number>`0::float8`;
  const folders = Math.max(1, path.split("/").length - 1);
  return sql<number>`coalesce((
    select max(case
      when e.p = ${path}::text then 1.0
      when starts_with(e.p, ${path}::text || '/') then 0.75
      when e.p <> '' and starts_with(${path}::text, e.p || '/') then 0.2 + 0.5 * array_length(string_to_array(e.p, '/'), 1)::float8 / ${folders}::float8
      else 0.0 end)
    from (select rtrim(value, '/') as p from jsonb_array_elements_text(n.paths)) as e
  ), 0.0)::float8`;
}
