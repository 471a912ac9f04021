// Projects (the notes service) and the context brief: notes and repositories grouped, and an index of a
// repository's recent notes for coding agents. Decisions: docs/decisions.md, "Projects and the context brief".
import { t } from "elysia";
import { op } from "./operation.ts";
import { Count, Id, IdParams, Int4, Limit, Offset, Timestamp } from "./schemas.ts";

const Name = t.String({ minLength: 1, maxLength: 200 });
const Description = t.String({ maxLength: 5000 });
const Color = t.String({ pattern: "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", description: "a hex color code: #rgb or #rrggbb" });
// A union of literals, not t.UnionEnum: Elysia gives an enum its first value as a default, which would turn every
// PATCH without a state into state "active".
const ProjectState = t.Union([t.Literal("active"), t.Literal("paused"), t.Literal("completed")]);
const Repositories = t.Array(t.String({ minLength: 1, maxLength: 500 }), {
  maxItems: 50,
  description: "repository addresses (https://host/owner/name, git@host:owner/name.git, host/owner/name); one repository belongs to one live project",
});

/** What a create or a PATCH may set besides the name (all optional). */
const projectFields = {
  description: t.Optional(Description),
  color: t.Optional(t.Nullable(Color)),
  state: t.Optional(ProjectState),
  repositories: t.Optional(Repositories),
};

export const Project = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  color: t.Nullable(t.String()),
  state: ProjectState,
  repositories: t.Array(t.String(), { description: "as given" }),
  archived: t.Boolean(),
  archivedAt: t.Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const BriefNote = t.Object({
  id: t.String(),
  title: t.String(),
  description: t.Nullable(t.String({ description: "the note's properties.description" })),
  kind: t.Nullable(t.String()),
  state: t.Nullable(t.String()),
  paths: t.Array(t.String()),
  tags: t.Array(t.String()),
  revision: Int4(),
  updatedAt: Timestamp,
  url: t.String({ description: "stable address of the note: /api/notes/<id>" }),
  pathAffinity: t.Number({ description: "0-1: how closely the note's paths match the requested path" }),
});

export const projectOperations = {
  listProjects: op({
    method: "GET",
    path: "/api/projects",
    service: "notes",
    permission: "projects.read",
    tag: "Projects",
    summary: "Active projects (not archived), most recently updated first; includeArchived=true adds archived ones",
    query: t.Object({ includeArchived: t.Optional(t.Boolean()), limit: t.Optional(Limit(1000, 200)), offset: t.Optional(Offset) }),
    response: t.Object({ projects: t.Array(Project), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  getProject: op({
    method: "GET",
    path: "/api/projects/:id",
    service: "notes",
    permission: "projects.read",
    tag: "Projects",
    summary: "One project",
    params: IdParams,
    response: t.Object({ project: Project }),
  }),
  createProject: op({
    method: "POST",
    path: "/api/projects",
    service: "notes",
    permission: "projects.write",
    tag: "Projects",
    summary: "Create a project",
    body: t.Object({ name: Name, ...projectFields }),
    response: t.Object({ project: Project }),
  }),
  updateProject: op({
    method: "PATCH",
    path: "/api/projects/:id",
    service: "notes",
    permission: "projects.write",
    tag: "Projects",
    summary: "Change any of name, description, color, state, repositories",
    params: IdParams,
    body: t.Object({ name: t.Optional(Name), ...projectFields }),
    response: t.Object({ project: Project }),
  }),
  deleteProject: op({
    method: "DELETE",
    path: "/api/projects/:id",
    service: "notes",
    permission: "projects.write",
    tag: "Projects",
    summary: "Archive a project; its notes and items stay",
    params: IdParams,
    response: t.Object({ project: Project }),
  }),
  contextBrief: op({
    method: "GET",
    path: "/api/context/brief",
    service: "notes",
    permission: "notes.read",
    tag: "Context",
    summary: "An index of a repository's recent notes (never bodies), ranked by path affinity, then recency",
    query: t.Object({
      project: t.String({ minLength: 1, maxLength: 500, description: "a repository address; https, .git and ssh spellings are the same repository" }),
      path: t.Optional(t.String({ minLength: 1, maxLength: 1000, description: "a path in the repository; notes about it (or its folders) rank first" })),
      limit: t.Optional(Limit(20, 10)),
    }),
    response: t.Object({
      repository: t.String({ description: "the normalised address: host/owner/name" }),
      project: t.Nullable(t.Object({ id: Id, name: t.String(), description: t.String(), state: ProjectState })),
      path: t.Nullable(t.String()),
      notes: t.Array(BriefNote),
      count: Count({ description: "notes of the repository in all; notes holds at most limit" }),
      limit: Int4(),
    }),
  }),
} as const;
