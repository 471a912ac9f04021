// Connected clients: API keys for other programs, created and revoked with a personal key. The gateway answers
// these itself (it owns the keys). The key is in the create answer only: never listed, never logged.
import { t } from "elysia";
import { op } from "./operation.ts";
import { Id, Timestamp } from "./schemas.ts";

const ClientAccess = t.Union([t.Literal("read_write"), t.Literal("read_only")], {
  description: "read_only: GET routes only, never source settings",
});

const ClientScope = t.Object(
  {
    tagSlugs: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 20,
        description: "tag names or slugs (kept as slugs); the key sees items carrying any of them",
      }),
    ),
    collectionId: t.Optional(Id),
  },
  { description: "exactly one of tagSlugs or collectionId; the key sees only items inside it" },
);

const ConnectedClient = t.Object({
  id: t.String(),
  name: t.String(),
  access: ClientAccess,
  scope: t.Nullable(ClientScope),
  createdAt: Timestamp,
  lastUsedAt: t.Optional(Timestamp),
});

export const clientOperations = {
  createClient: op({
    method: "POST",
    path: "/api/connected-clients",
    service: "gateway",
    permission: "clients.manage",
    tag: "Connected clients",
    summary: "Create a connected-client key (personal keys only); the key is in this answer and never again",
    body: t.Object({
      name: t.String({ minLength: 1, maxLength: 200 }),
      access: t.Optional(ClientAccess),
      scope: t.Optional(ClientScope),
    }),
    response: t.Object({ client: ConnectedClient, apiKey: t.String({ description: "the key, shown this once; starts with trove_ck_" }) }),
  }),
  listClients: op({
    method: "GET",
    path: "/api/connected-clients",
    service: "gateway",
    permission: "clients.manage",
    tag: "Connected clients",
    summary: "The account's active connected clients, newest first (no keys)",
    response: t.Object({ clients: t.Array(ConnectedClient) }),
  }),
  revokeClient: op({
    method: "POST",
    path: "/api/connected-clients/revoke",
    service: "gateway",
    permission: "clients.manage",
    tag: "Connected clients",
    summary: "Revoke one connected client's key, at once on every gateway",
    body: t.Object({ id: Id }),
    response: t.Object({ ok: t.Boolean(), id: t.String() }),
  }),
} as const;
