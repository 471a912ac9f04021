// The client's address: the connection's peer, unless that peer is a proxy the operator trusts
// (TROVE_TRUSTED_PROXIES), in which case the forwarding header it wrote names the hop before it. The header is
// walked from the right (the hop the trusted peer saw) for as long as each hop is trusted too, as Express's
// proxy-addr does; the first untrusted hop is the client. A header from an untrusted peer is never read: the client
// would choose its own address, and with it its rate budget.
import proxyaddr from "@fastify/proxy-addr";
import parseForwarded from "forwarded-parse";
import ipaddr from "ipaddr.js";

export type ClientAddress = (peer: string, headers: Headers) => string;

/**
 * The address function for a list of trusted proxies (addresses and CIDRs, checked by the config). With none, the
 * peer is the client and no header is read.
 */
export function clientAddressResolver(trusted: readonly string[]): ClientAddress {
  if (trusted.length === 0) return (peer) => peer;
  const trust = proxyaddr.compile([...trusted]);
  return (peer, headers) => {
    if (!trust(peer, 0)) return peer;
    const hops = forwardedHops(headers);
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hostOf(hops[i]!);
      // A hop that names no address ("unknown", an obfuscated name, garbage) ends the walk at the proxy that wrote
      // it: a made-up string must not become an address with a budget of its own.
      if (hop === null) return client;
      client = hop;
      if (!trust(hop, hops.length - i)) return client;
    }
    return client;
  };
}

/**
 * The hops a trusted proxy reported, leftmost first. X-Forwarded-For when the request has one (what nearly every
 * proxy writes), else the `for=` of each `Forwarded` element (RFC 7239). Only one header is read: a proxy that
 * writes one passes the other through as the client sent it, so mixing them would believe the client.
 */
function forwardedHops(headers: Headers): string[] {
  const xff = headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",").map((s) => s.trim());
  const forwarded = headers.get("forwarded");
  if (forwarded === null) return [];
  try {
    return parseForwarded(forwarded).map((element) => element.for ?? "");
  } catch {
    // Not a valid Forwarded header: no hop can be read from it, so the trusted peer itself is the client.
    return [];
  }
}

/** The address in one hop (`1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]:443`), or null if it is none. */
function hostOf(hop: string): string | null {
  let host = hop;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) host = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(host)) host = host.slice(0, host.indexOf(":"));
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host) ? host : null;
}
