// Sessions: a person signs in with email and password (or a personal key) and the browser holds an HttpOnly
// cookie that the gateway accepts as the account's personal credential. Writes made with the cookie carry the
// session's CSRF token in the X-CSRF-Token header. The gateway answers these itself (it owns accounts).
import { t } from "elysia";
import { op } from "./operation.ts";
import { Id, Timestamp } from "./schemas.ts";

const Session = t.Object({
  id: t.String(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  lastUsedAt: t.Nullable(Timestamp),
  userAgent: t.Nullable(t.String()),
  address: t.Nullable(t.String()),
  current: t.Boolean({ description: "the session this request was made with" }),
});

const SignedIn = t.Object({
  account: t.Object({ email: t.String(), plan: t.String() }),
  session: Session,
  csrfToken: t.String({ description: "send as X-CSRF-Token on every write made with the session cookie" }),
});

export const sessionOperations = {
  createSession: op({
    method: "POST",
    path: "/api/session",
    service: "gateway",
    permission: null,
    tag: "Sessions",
    summary:
      "Sign in with email and password, or a personal key, sent as JSON: sets the HttpOnly session cookie (TROVE_SIGN_IN_LIMIT starts per address per 60 s, TROVE_SIGN_IN_ACCOUNT_LIMIT failed passwords per account per 15 minutes, default 10 each; a cross-site request is refused)",
    body: t.Object(
      {
        email: t.Optional(t.String({ minLength: 3, maxLength: 320 })),
        password: t.Optional(t.String({ minLength: 1, maxLength: 1024 })),
        key: t.Optional(t.String({ minLength: 16, maxLength: 512, description: "a personal API key, instead of email and password" })),
      },
      { description: "email and password, or key" },
    ),
    response: SignedIn,
  }),
  getSession: op({
    method: "GET",
    path: "/api/session",
    service: "gateway",
    permission: "items.read",
    tag: "Sessions",
    summary: "Who is signed in: the account, and with the session cookie the session and its CSRF token (null with a key)",
    response: t.Object({
      account: t.Object({
        email: t.Nullable(t.String({ description: "null for a connected client's key: the address is the person's, not the program's" })),
        plan: t.String(),
      }),
      session: t.Nullable(Session),
      csrfToken: t.Nullable(t.String()),
    }),
  }),
  deleteSession: op({
    method: "DELETE",
    path: "/api/session",
    service: "gateway",
    permission: null,
    tag: "Sessions",
    summary: "Sign out: the session ends on every gateway and the cookie is cleared",
    response: t.Object({ ok: t.Boolean() }),
  }),
  listSessions: op({
    method: "GET",
    path: "/api/sessions",
    service: "gateway",
    permission: "clients.manage",
    tag: "Sessions",
    summary: "The account's live sessions, newest first",
    response: t.Object({ sessions: t.Array(Session) }),
  }),
  revokeSession: op({
    method: "POST",
    path: "/api/sessions/revoke",
    service: "gateway",
    permission: "clients.manage",
    tag: "Sessions",
    summary: "End one of the account's sessions",
    body: t.Object({ id: Id }),
    response: t.Object({ ok: t.Boolean(), id: t.String() }),
  }),
  setPassword: op({
    method: "POST",
    path: "/api/account/password",
    service: "gateway",
    permission: "clients.manage",
    tag: "Sessions",
    summary: "Set the account's sign-in password (personal key or session; with currentPassword once one is set); other sessions end",
    body: t.Object({
      password: t.String({ minLength: 10, maxLength: 1024 }),
      currentPassword: t.Optional(
        t.String({ minLength: 1, maxLength: 1024, description: "the password the account has now: required once a password is set" }),
      ),
    }),
    response: t.Object({ ok: t.Boolean() }),
  }),
} as const;
