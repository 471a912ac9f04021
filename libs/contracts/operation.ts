// The shape of one operation in the contract table, and the types handlers get from it.
import type { Static, TSchema } from "elysia";
import type { Logger } from "@trove/log";

export type ServiceName = "gateway" | "items" | "notes" | "sources" | "delivery" | "exports";

export const permissions = [
  "items.read",
  "items.write",
  "changes.read",
  "notes.read",
  "notes.write",
  "projects.read",
  "projects.write",
  "sources.read",
  "sources.write",
  "webhooks.manage",
  "clients.manage",
] as const;
export type Permission = (typeof permissions)[number];

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface Operation {
  method: HttpMethod;
  /** Elysia path syntax: `/api/items/:id`. */
  path: string;
  service: ServiceName;
  /** null: no credential needed. */
  permission: Permission | null;
  summary: string;
  tag: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  response: TSchema;
  /** Set when the reply is not JSON: the handler returns a RawReply with this content type. */
  produces?: string;
  /**
   * Media types the route may answer instead of JSON when the request's Accept header asks for one of them: the
   * gateway passes the chosen type as `accept` and the handler returns a RawReply for it.
   */
  alternates?: readonly string[];
  /**
   * Set when the body may also be a document sent as itself (not JSON): a request with one of these content types
   * has its text put into `field` of the JSON body the contract describes, and is validated as that.
   */
  textBody?: { field: string; contentTypes: readonly string[] };
  /**
   * Set when the body may be a file sent as itself (any content type but JSON): the gateway reads its bytes and puts
   * them, base64-encoded, into `field` of the JSON body the contract describes.
   */
  fileBody?: { field: string };
  /** A POST that reads the library and changes none of it (starting an export): read-only keys may call it. */
  reads?: true;
  /**
   * Works on the whole library (an import), or on the definitions scopes are made of (creating, renaming or
   * deleting a tag, creating a collection): a key scoped to a tag or collection may not call it.
   */
  wholeLibrary?: true;
  /** How long the gateway waits for the reply when that may exceed the configured request timeout (a produced download). */
  timeoutMs?: number;
}

/** What a handler returns for a non-JSON operation: the bytes inline, or a blob the gateway streams. */
export type RawReply = InlineReply | BlobReply;

/** Bytes in the reply itself (base64-encoded over the bus): for what fits in one message. */
export interface InlineReply {
  body: string;
  encoding: "utf8" | "base64";
  contentType: string;
  headers?: Record<string, string>;
}

/**
 * A reply too large for one message: the service wrote it to the shared blob store under `blob`, and the gateway
 * streams it from there to the client. With `deleteAfter` the gateway removes the blob once it was sent or the
 * client went away (a produced download, fetched once).
 */
export interface BlobReply {
  blob: string;
  contentType: string;
  headers?: Record<string, string>;
  deleteAfter?: boolean;
}

export interface KeyScope {
  tagSlugs?: string[];
  collectionId?: string;
}

/** Who is calling: resolved by the gateway from the bearer key and carried over the bus with each request. */
export interface Caller {
  accountId: string;
  keyId: string;
  keyKind: "personal" | "client";
  access: "read_write" | "read_only";
  scope: KeyScope | null;
  plan: { name: string; linkLimit: number; limitScope: "lifetime" | "billing_cycle" };
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export type InputOf<O extends Operation> = {
  params: StaticOr<O["params"], Record<string, never>>;
  query: StaticOr<O["query"], Record<string, never>>;
  body: StaticOr<O["body"], undefined>;
  /** One of the operation's `alternates`, when the request's Accept header chose it. */
  accept?: string;
};

export type OutputOf<O extends Operation> = O["produces"] extends string
  ? RawReply
  : O["alternates"] extends readonly string[]
    ? Static<O["response"]> | RawReply
    : Static<O["response"]>;

export interface HandlerContext {
  caller: Caller | null;
  requestId: string;
  /** Bound to the request id, so every line of one request can be found. */
  log: Logger;
  /** The HTTP request as the gateway saw it: for the operations the gateway answers itself (sign-in, sessions). */
  http?: GatewayHttp;
}

/** What a gateway-answered operation may read of its HTTP request and add to its response. */
export interface GatewayHttp {
  /** The client's address (the sign-in budget is per address). */
  address: string;
  userAgent: string | null;
  /** True when the request came over HTTPS (directly or as X-Forwarded-Proto says): cookies get Secure. */
  secure: boolean;
  /** The session the request was made with, when it was made with the session cookie. */
  sessionId: string | null;
  /** The session cookie's value, when the request carried one (live or not). */
  sessionToken: string | null;
  /** Adds a Set-Cookie header to the response. */
  setCookie(cookie: string): void;
  /** Adds a budget's `RateLimit-Policy` and `RateLimit` entries to the response's (and `Retry-After`, on a refusal). */
  rateLimit(headers: Record<string, string>): void;
}

export type Handler<O extends Operation> = (input: InputOf<O>, ctx: HandlerContext) => Promise<OutputOf<O>> | OutputOf<O>;

/** Identity helper that keeps each entry's literal types. */
export const op = <const O extends Operation>(o: O): O => o;
