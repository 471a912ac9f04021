// The SSRF guard at connection time. Names are resolved once, every address is
// checked, and only checked addresses are handed to the socket (through the
// `lookup` option of node:http/https, which Bun 1.4.5 honours; see guard.test.ts),
// so a DNS answer that changes between check and connect (rebinding) cannot win.
import { promises as dns } from "node:dns";
import type { LookupAddress } from "node:dns";
import { addressPolicy, type AddressPolicy } from "./address.ts";
import { FetchError } from "./errors.ts";
import { literalIp, parseTarget, socketHost } from "./url.ts";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name -> addresses. Injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  // RFC 6761: .invalid never resolves, so do not even ask the network.
  if (/(^|\.)invalid\.?$/i.test(hostname)) throw Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" });
  return dns.lookup(hostname, { all: true, verbatim: true });
};

/**
 * Throws blocked_address unless the policy allows `ip`. The message never names the address a host name resolved
 * to (that would let anyone resolve internal names through the API); `detail` keeps it for the logs.
 */
export function checkAddress(policy: AddressPolicy, ip: string, host: string, url: string): void {
  const range = policy(ip);
  if (range === null) return;
  const literal = ip === host || `[${ip}]` === host;
  const message = literal ? `${ip} is in a blocked range: ${range}` : `${host} resolves to an address Trove may not fetch`;
  throw new FetchError("blocked_address", message, url, { detail: `${host} (${ip}) is in a blocked range: ${range}` });
}

/**
 * Refuses a URL before anything is fetched or saved: its scheme and, for the first hop, its host's addresses
 * (resolved within `timeoutMs`). A name that does not resolve is not a refusal: the fetch reports it.
 */
export async function checkTarget(
  input: string,
  opts: { allowPrivate: boolean; resolver?: Resolver; timeoutMs?: number },
): Promise<void> {
  const url = parseTarget(input);
  const policy = addressPolicy(opts.allowPrivate);
  const ip = literalIp(url);
  if (ip) return checkAddress(policy, ip, ip, url.href);
  const host = socketHost(url);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), opts.timeoutMs ?? 5_000)));
  const addresses = await Promise.race([(opts.resolver ?? systemResolver)(host).catch(() => null), expired]).finally(() => clearTimeout(timer));
  for (const a of addresses ?? []) checkAddress(policy, a.address, host, url.href);
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: { all?: boolean } | undefined, callback: LookupCallback) => void;

/**
 * A `lookup` for http.request that resolves with `resolver`, refuses the whole host if
 * ANY address is blocked (a mixed answer is a rebinding or misconfiguration signal),
 * and reports why through `onFailure` so the caller need not trust how the HTTP client
 * wraps the error.
 */
export function guardedLookup(
  policy: AddressPolicy,
  resolver: Resolver,
  url: string,
  onFailure: (err: FetchError) => void,
): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0) throw new FetchError("dns", `${hostname} has no addresses`, url);
          for (const a of addresses) checkAddress(policy, a.address, hostname, url);
        } catch (err) {
          onFailure(err as FetchError);
          callback(err as Error, "");
          return;
        }
        if (options?.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: unknown) => {
        const code = (err as { code?: string }).code ?? "";
        const failure = new FetchError("dns", `cannot resolve ${hostname}${code ? ` (${code})` : ""}`, url, { cause: err });
        onFailure(failure);
        callback(failure, "");
      },
    );
  };
}
