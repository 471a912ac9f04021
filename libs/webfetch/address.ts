// Which IP addresses Trove may connect to. The fetcher asks this for every
// resolved address and every literal, so it must be conservative: anything that
// is not plainly public unicast is refused and named.
import ipaddr from "ipaddr.js";

/** Cloud instance-metadata endpoints: refused even when private networks are allowed. */
const METADATA = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, DigitalOcean...
  "169.254.170.2", // AWS ECS task credentials
  "169.254.170.23", // AWS EKS pod identity
  "100.100.100.200", // Alibaba Cloud
  "fd00:ec2::254", // AWS IMDS over IPv6
  "fd00:ec2::23", // AWS EKS pod identity over IPv6
]);

/** ipaddr.js range names -> the names Trove reports; absent = blocked under its own name. */
const V4_NAMES: Record<string, string> = {
  carrierGradeNat: "cgnat",
};

/**
 * null when `ip` is a public address Trove may connect to, otherwise the name of
 * the range that blocks it ("loopback", "private", "linkLocal", "metadata",
 * "uniqueLocal", "cgnat", "unspecified", "multicast", "broadcast", "reserved",
 * "teredo", "nat64Local", "invalid"). IPv6 forms that embed an IPv4 address
 * (mapped, compatible, translated, NAT64, 6to4) are judged by the embedded address.
 */
export function blockedRange(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Lenient IPv4 parsing (127.1, 0x7f.1, 2130706433) on purpose: it reads them
    // the way inet_aton, and so a socket, would.
    addr = ipaddr.parse(dottedTailToHex(ip.trim().replace(/^\[(.*)\]$/, "$1")));
  } catch {
    return "invalid";
  }
  if (addr.kind() === "ipv4") return v4Range(addr as ipaddr.IPv4);
  return METADATA.has(addr.toString()) ? "metadata" : v6Range(addr as ipaddr.IPv6);
}

/**
 * "::1.2.3.4" -> "::102:304". ipaddr.js reads any dotted IPv6 tail as IPv4-mapped
 * (::ffff:1.2.3.4), which would let the deprecated compatible form pass as mapped.
 */
function dottedTailToHex(ip: string): string {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (!m) return ip;
  const [a, b, c, d] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
  if ([a, b, c, d].some((n) => n > 255)) return ip; // let the parser reject it
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function v4Range(addr: ipaddr.IPv4): string | null {
  if (METADATA.has(addr.toString())) return "metadata";
  const range = addr.range();
  if (range === "unicast") return null;
  return V4_NAMES[range] ?? range;
}

function v6Range(addr: ipaddr.IPv6): string | null {
  const p = addr.parts; // eight 16-bit groups
  const embedded = () => ipaddr.IPv4.parse(`${p[6]! >> 8}.${p[6]! & 0xff}.${p[7]! >> 8}.${p[7]! & 0xff}`);
  const range = addr.range();
  switch (range) {
    case "unspecified":
    case "loopback":
    case "linkLocal":
    case "multicast":
    case "uniqueLocal":
    case "teredo": // tunnels to an IPv4 host we cannot judge
      return range;
    case "ipv4Mapped": // ::ffff:a.b.c.d
    case "rfc6145": // ::ffff:0:a.b.c.d (SIIT)
      return v4Range(embedded());
    case "rfc6052": {
      // 64:ff9b::/96 is the well-known NAT64 prefix: the gateway connects to the
      // embedded IPv4. 64:ff9b:1::/48 is local-use NAT64 with no fixed layout.
      const wellKnown = p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0;
      return wellKnown ? v4Range(embedded()) : "nat64Local";
    }
    case "6to4": {
      // 2002:AABB:CCDD::/48 relays to AA.BB.CC.DD.
      const v4 = ipaddr.IPv4.parse(`${p[1]! >> 8}.${p[1]! & 0xff}.${p[2]! >> 8}.${p[2]! & 0xff}`);
      return v4Range(v4);
    }
    case "unicast":
      break;
    default:
      return "reserved"; // discard, documentation, benchmarking, ORCHID, ...
  }
  // ::a.b.c.d (deprecated IPv4-compatible): refuse, naming the embedded range when it has one.
  if (p.slice(0, 6).every((g) => g === 0)) return v4Range(embedded()) ?? "reserved";
  // Only 2000::/3 is allocated as global unicast; everything else has no business on the Internet.
  if ((p[0]! & 0xe000) !== 0x2000) return "reserved";
  return null;
}

/** Decides per address: null = allowed, else the reason it is refused. */
export type AddressPolicy = (ip: string) => string | null;

/**
 * The production policy. allowPrivate (TROVE_ALLOW_PRIVATE_NETWORK=1, for tests and
 * home-lab installs) lets every range through except cloud metadata endpoints,
 * which no bookmark needs and which are the classic SSRF prize.
 */
export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return (ip) => {
    const range = blockedRange(ip);
    if (range === null || (allowPrivate && range !== "metadata" && range !== "invalid")) return null;
    return range;
  };
}
