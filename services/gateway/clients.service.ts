// Connected clients: the rules for creating, listing and revoking client keys. Only personal keys get here
// (clients.manage is a personal-only permission, permissions.ts).
import type { Bus } from "@trove/bus";
import { type Caller, type KeyScope, slugify, subjectOf } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError, notFound } from "@trove/errors";
import { callerHeader, requestIdHeader } from "@trove/host";
import type { Logger } from "@trove/log";
import { hashKey, type AccountsService } from "./accounts.service.ts";
import type { ClientRow, ClientsRepository } from "./clients.repository.ts";

/** Recognisable in a leaked file or a secret scanner's rules. */
export const clientKeyPrefix = "trove_ck_";

type Access = "read_write" | "read_only";

export interface ConnectedClient {
  id: string;
  name: string;
  access: Access;
  scope: KeyScope | null;
  createdAt: number;
  lastUsedAt?: number;
}

/** A new key: the prefix and 256 random bits, base64url (52 characters in all). */
export function newClientKey(): string {
  return clientKeyPrefix + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

const invalid = (field: string, message: string) => new AppError("validation_failed", `invalid body: ${field} (${message})`, { fields: { [field]: message } });

export class ClientsService {
  constructor(
    private readonly repo: ClientsRepository,
    private readonly accounts: AccountsService,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly requestTimeoutMs: number,
  ) {}

  async create(
    caller: Caller,
    input: { name: string; access?: Access; scope?: KeyScope },
    requestId: string,
  ): Promise<{ client: ConnectedClient; apiKey: string }> {
    const scope = input.scope === undefined ? null : await this.checkScope(caller, input.scope, requestId);
    const apiKey = newClientKey();
    const row = await this.repo.create(caller.accountId, {
      id: newId(),
      name: input.name,
      keyHash: hashKey(apiKey),
      access: input.access ?? "read_write",
      scope,
      now: nowSeconds(),
    });
    return { client: toClient(row), apiKey };
  }

  async list(caller: Caller): Promise<{ clients: ConnectedClient[] }> {
    return { clients: (await this.repo.listActive(caller.accountId)).map(toClient) };
  }

  /** Revokes the key in the database, then on every gateway; another account's or a personal key's id is 404. */
  async revoke(caller: Caller, id: string): Promise<{ ok: true; id: string }> {
    if (!(await this.repo.revoke(caller.accountId, id, nowSeconds(), this.accounts.revocationMark(id)))) throw notFound("connected client");
    try {
      await this.accounts.revoked(this.bus, id);
    } catch (err) {
      // The key is revoked (the database says so) and gone from this gateway; other replicas find the mark on its
      // shared count at their next request with it (one process: there is no other).
      this.log.warn({ err, keyId: id }, "could not broadcast a key revocation; other gateways refuse it by its revocation mark");
    }
    return { ok: true, id };
  }

  /** Exactly one of tags or collection; tags are kept as slugs, a collection must exist in the account. */
  private async checkScope(caller: Caller, scope: KeyScope, requestId: string): Promise<KeyScope> {
    const { tagSlugs, collectionId } = scope;
    if ((tagSlugs === undefined) === (collectionId === undefined)) {
      throw invalid("scope", "give exactly one of tagSlugs or collectionId");
    }
    if (tagSlugs) {
      const slugs: string[] = [];
      for (const [i, name] of tagSlugs.entries()) {
        const slug = slugify(name);
        if (!slug) throw invalid(`scope.tagSlugs.${i}`, "has no letters or digits to make a tag slug of");
        if (!slugs.includes(slug)) slugs.push(slug);
      }
      // A tag need not exist yet: the key sees items as they get it.
      return { tagSlugs: slugs };
    }
    // The items service owns collections: ask it, as the caller, which ones the account has.
    const { collections } = (await this.bus.request(
      subjectOf("listCollections"),
      { params: {}, query: {} },
      { timeoutMs: this.requestTimeoutMs, headers: { [callerHeader]: JSON.stringify(caller), [requestIdHeader]: requestId } },
    )) as { collections: { id: string }[] };
    if (!collections.some((c) => c.id === collectionId)) throw invalid("scope.collectionId", "no collection with this id in the account");
    return { collectionId };
  }
}

function toClient(row: ClientRow): ConnectedClient {
  const client: ConnectedClient = { id: row.id, name: row.name, access: row.access, scope: row.scope, createdAt: row.createdAt };
  if (row.lastUsedAt !== null) client.lastUsedAt = row.lastUsedAt;
  return client;
}
