import { describe, expect, test } from "bun:test";
import { clientAddressResolver } from "./client-address.ts";

const headers = (h: Record<string, string>) => new Headers(h);

describe("the client address", () => {
  test("with no trusted proxy the peer is the client, whatever the headers say", () => {
    const address = clientAddressResolver([]);
    expect(address("203.0.113.5", headers({ "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.5");
    expect(address("203.0.113.5", headers({ forwarded: "for=198.51.100.1" }))).toBe("203.0.113.5");
  });

  test("a peer outside the trusted ranges is the client: its X-Forwarded-For is not read", () => {
    const address = clientAddressResolver(["10.0.0.0/8"]);
    expect(address("203.0.113.5", headers({ "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.5");
    expect(address("11.0.0.1", headers({ "x-forwarded-for": "198.51.100.1" }))).toBe("11.0.0.1");
  });

  test("from a trusted peer, the hop it saw is the client; what the client wrote to the left is not believed", () => {
    const address = clientAddressResolver(["10.0.0.0/8"]);
    expect(address("10.1.2.3", headers({ "x-forwarded-for": "198.51.100.1" }))).toBe("198.51.100.1");
    // The client sent X-Forwarded-For: 1.1.1.1 and the proxy appended the address it saw.
    expect(address("10.1.2.3", headers({ "x-forwarded-for": "1.1.1.1, 198.51.100.1" }))).toBe("198.51.100.1");
    // Without the header, the trusted peer itself is the client.
    expect(address("10.1.2.3", headers({}))).toBe("10.1.2.3");
  });

  test("a chain of trusted proxies is walked from the right until the first hop that is not trusted", () => {
    const address = clientAddressResolver(["10.0.0.0/8", "192.0.2.7"]);
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "1.1.1.1, 198.51.100.1, 192.0.2.7, 10.9.9.9" }))).toBe("198.51.100.1");
    // Every hop trusted: the leftmost is the client.
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "10.4.4.4, 10.3.3.3" }))).toBe("10.4.4.4");
    // Only the first proxy trusted: the next hop is the client even if it is a proxy of someone else's.
    expect(clientAddressResolver(["10.0.0.1"])(
      "10.0.0.1",
      headers({ "x-forwarded-for": "198.51.100.1, 10.3.3.3" }),
    )).toBe("10.3.3.3");
  });

  test("IPv6 peers and hops, IPv4 peers seen as IPv4-mapped IPv6, and ports in hops", () => {
    const address = clientAddressResolver(["10.0.0.0/8", "fd00::/8"]);
    expect(address("fd00::1", headers({ "x-forwarded-for": "2001:db8::7" }))).toBe("2001:db8::7");
    expect(address("::ffff:10.0.0.1", headers({ "x-forwarded-for": "198.51.100.1" }))).toBe("198.51.100.1");
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "198.51.100.1:50312" }))).toBe("198.51.100.1");
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "[2001:db8::7]:443" }))).toBe("2001:db8::7");
  });

  test("Forwarded (RFC 7239) for= is read when there is no X-Forwarded-For", () => {
    const address = clientAddressResolver(["10.0.0.0/8"]);
    expect(address("10.0.0.1", headers({ forwarded: "for=198.51.100.1;proto=https" }))).toBe("198.51.100.1");
    expect(address("10.0.0.1", headers({ forwarded: 'for=1.1.1.1, for="[2001:db8:cafe::17]:4711"' }))).toBe("2001:db8:cafe::17");
    expect(address("10.0.0.1", headers({ forwarded: "for=198.51.100.1, for=10.2.2.2" }))).toBe("198.51.100.1");
    // X-Forwarded-For wins when both are there: the proxy wrote one, and passed the other on as the client sent it.
    expect(address("10.0.0.1", headers({ forwarded: "for=1.1.1.1", "x-forwarded-for": "198.51.100.1" }))).toBe("198.51.100.1");
  });

  test("a hop that is no address ends the walk at the proxy that reported it", () => {
    const address = clientAddressResolver(["10.0.0.0/8"]);
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "made-up" }))).toBe("10.0.0.1");
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "198.51.100.1, unknown, 10.0.0.2" }))).toBe("10.0.0.2");
    expect(address("10.0.0.1", headers({ forwarded: "for=unknown" }))).toBe("10.0.0.1");
    expect(address("10.0.0.1", headers({ forwarded: "for=_hidden, for=10.0.0.3" }))).toBe("10.0.0.3");
    expect(address("10.0.0.1", headers({ forwarded: "proto=https" }))).toBe("10.0.0.1");
    expect(address("10.0.0.1", headers({ forwarded: "for=;;;" }))).toBe("10.0.0.1");
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "0x7f.1" }))).toBe("10.0.0.1");
    expect(address("10.0.0.1", headers({ "x-forwarded-for": "" }))).toBe("10.0.0.1");
  });
});
