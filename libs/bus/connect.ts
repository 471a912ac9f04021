// Opening a NATS connection as the operator configured it: a user and password or a credentials file, and TLS.
// The bus, the blob store and the test clean-up all connect through here, so they sign in the same way.
import { readFileSync } from "node:fs";
import { connect } from "@nats-io/transport-node";
import { credsAuthenticator, usernamePasswordAuthenticator, type ConnectionOptions, type NatsConnection } from "@nats-io/nats-core";

/** How a process signs in to NATS; every field unset: no credentials, plain TCP unless the URL says `tls://`. */
export interface NatsAccess {
  user?: string;
  password?: string;
  /** Path of a NATS credentials file (user JWT and NKey seed); read again at each (re)connect, so it can be rotated. */
  credsFile?: string;
  /** TLS to the server (required when set): PEM files of the CA to trust and of a client certificate and key. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/**
 * Where replies to a user's requests arrive: `_INBOX.<user>`, so the server can let each user read its own replies
 * only (deploy/nats/nats.conf). Without a user name, NATS's default `_INBOX`.
 */
export function inboxPrefixOf(access: NatsAccess | undefined): string | undefined {
  return access?.user ? `_INBOX.${access.user}` : undefined;
}

/** The connection options for `url` with `access` laid over `base`. */
export function natsConnectOptions(url: string, access: NatsAccess | undefined, base: Partial<ConnectionOptions> = {}): ConnectionOptions {
  const options: ConnectionOptions = { ...base, servers: url };
  if (access?.user !== undefined) {
    options.authenticator = usernamePasswordAuthenticator(access.user, access.password ?? "");
  } else if (access?.credsFile !== undefined) {
    const path = access.credsFile;
    options.authenticator = credsAuthenticator(() => readFileSync(path));
  }
  const inboxPrefix = inboxPrefixOf(access);
  if (inboxPrefix) options.inboxPrefix = inboxPrefix;
  // A tls:// address, or any TLS file: the client insists on TLS (a server without it is refused).
  if (access?.tls || url.startsWith("tls://")) options.tls = { ...access?.tls };
  return options;
}

/** Connects, and says plainly when the server turned the credentials away. */
export async function connectNats(url: string, access: NatsAccess | undefined, base: Partial<ConnectionOptions> = {}): Promise<NatsConnection> {
  try {
    return await connect(natsConnectOptions(url, access, base));
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/authorization|authentication/i.test(message)) {
      const how = access?.user
        ? `user "${access.user}" (check NATS_USER/NATS_PASSWORD)`
        : access?.credsFile
          ? "the credentials file of NATS_CREDS"
          : "a connection without credentials (set NATS_USER/NATS_PASSWORD or NATS_CREDS)";
      throw new Error(`NATS at ${url} refused ${how}: ${message}`, { cause: err });
    }
    throw err;
  }
}
