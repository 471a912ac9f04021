// The allow/deny table, on the address check alone: nothing here opens a connection.
import { describe, expect, test } from "bun:test";
import { addressPolicy, blockedRange } from "./address.ts";

const blocked: [string, string][] = [
  // loopback in every spelling a parser might hand us
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["127.1", "loopback"],
  ["2130706433", "loopback"],
  ["0x7f.0.0.1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  // RFC 1918
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.1", "private"],
  ["192.168.255.255", "private"],
  // link-local and cloud metadata
  ["169.254.0.1", "linkLocal"],
  ["169.254.169.254", "metadata"],
  ["169.254.170.2", "metadata"],
  ["100.100.100.200", "metadata"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "linkLocal"],
  ["febf:ffff::1", "linkLocal"],
  // CGNAT, "this network", multicast, broadcast, reserved
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.2.1", "reserved"],
  ["198.18.0.1", "reserved"],
  // IPv6 special ranges
  ["::", "unspecified"],
  ["fc00::1", "uniqueLocal"],
  ["fdff:ffff::1", "uniqueLocal"],
  ["ff02::1", "multicast"],
  ["ff05::1:3", "multicast"],
  ["2001:db8::1", "reserved"],
  ["100::1", "reserved"],
  ["fec0::1", "reserved"], // deprecated site-local, outside 2000::/3
  ["2001::1", "teredo"],
  // IPv6 forms that embed an IPv4 address are judged by it
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:0:192.168.1.1", "private"], // IPv4-translated (SIIT)
  ["::127.0.0.1", "loopback"], // IPv4-compatible (deprecated)
  ["::10.0.0.1", "private"],
  ["::8.8.8.8", "reserved"], // compatible form is refused even for a public v4
  ["64:ff9b::10.0.0.1", "private"], // NAT64
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::169.254.169.254", "metadata"],
  ["64:ff9b:1::a00:1", "nat64Local"],
  ["2002:7f00:1::", "loopback"], // 6to4 relaying to 127.0.0.1
  ["2002:c0a8:101::1", "private"], // 6to4 relaying to 192.168.1.1
  // not addresses at all
  ["", "invalid"],
  ["localhost", "invalid"],
  ["999.1.1.1", "invalid"],
];

const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.32.0.1", // just past 172.16/12
  "100.128.0.1", // just past 100.64/10
  "169.253.255.255",
  "11.0.0.1",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:80b::200e",
  "::ffff:8.8.8.8", // mapped public v4
  "64:ff9b::8.8.8.8", // NAT64 to a public v4
  "2002:808:808::1", // 6to4 to a public v4
];

describe("blockedRange", () => {
  test.each(blocked)("%p is blocked as %p", (ip, range) => {
    expect(blockedRange(ip)).toBe(range);
  });
  test.each(allowed)("%p is allowed", (ip) => {
    expect(blockedRange(ip)).toBeNull();
  });
});

describe("addressPolicy", () => {
  test("strict policy refuses what blockedRange names", () => {
    const strict = addressPolicy(false);
    expect(strict("127.0.0.1")).toBe("loopback");
    expect(strict("8.8.8.8")).toBeNull();
  });
  test("allowPrivate lets private ranges through but never cloud metadata", () => {
    const lax = addressPolicy(true);
    for (const ip of ["127.0.0.1", "::1", "10.1.2.3", "192.168.1.1", "100.64.0.1", "fd12::1", "0.0.0.0"]) expect(lax(ip)).toBeNull();
    expect(lax("169.254.169.254")).toBe("metadata");
    expect(lax("fd00:ec2::254")).toBe("metadata");
    expect(lax("::ffff:169.254.169.254")).toBe("metadata");
    expect(lax("not-an-ip")).toBe("invalid");
  });
});
