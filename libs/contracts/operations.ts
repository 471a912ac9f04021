// The contract table: every operation of the API, one entry each. The gateway builds its routes and the
// OpenAPI document from it; each service registers handlers for its own entries. Subject = `<service>.<name>`.
import { t } from "elysia";
import { op } from "./operation.ts";
import { HealthReport, IdParams, Item, ListFilters, SyncResponse } from "./schemas.ts";

export const operations = {
  health: op({
    method: "GET",
    path: "/api/health",
    service: "gateway",
    permission: null,
    tag: "Account",
    summary: "Service health: database, bus and each service",
    response: HealthReport,
  }),
  me: op({
    method: "GET",
    path: "/api/me",
    service: "items",
    permission: "items.read",
    tag: "Account",
    summary: "The caller's plan and link counts",
    response: t.Object({
      plan: t.String(),
      limitScope: t.String(),
      linkLimit: t.Integer(),
      linkCount: t.Integer(),
      linkCountMonth: t.Integer(),
      linkCountPeriod: t.Integer(),
      linkCountLifetime: t.Integer(),
    }),
  }),
  ingest: op({
    method: "POST",
    path: "/api/ingest",
    service: "items",
    permission: "items.write",
    tag: "Items",
    summary: "Save a web page",
    body: t.Object({
      url: t.String({ minLength: 1, maxLength: 8192 }),
      source: t.Optional(t.String({ maxLength: 200 })),
      html: t.Optional(t.String({ description: "the page as the browser rendered it; no fetch is made" })),
    }),
    response: t.Object({
      ok: t.Boolean(),
      id: t.String(),
      url: t.String(),
      extracted: t.Boolean(),
      extractError: t.Optional(t.String()),
      background: t.Optional(t.Boolean()),
      sync: t.Optional(SyncResponse),
    }),
  }),
  listItems: op({
    method: "GET",
    path: "/api/items",
    service: "items",
    permission: "items.read",
    tag: "Items",
    summary: "List items",
    query: t.Object(ListFilters),
    response: t.Object({ items: t.Array(Item), limit: t.Integer(), offset: t.Integer(), count: t.Integer() }),
  }),
  getItem: op({
    method: "GET",
    path: "/api/items/:id",
    service: "items",
    permission: "items.read",
    tag: "Items",
    summary: "One item with its complete saved content",
    params: IdParams,
    query: t.Object({ include: t.Optional(t.String()) }),
    response: Item,
  }),
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;

/** The bus subject of an operation. */
export const subjectOf = (name: OperationName): string => `${operations[name].service}.${name}`;
