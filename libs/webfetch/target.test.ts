// checkTarget: the refusal decided before anything is saved or fetched. No connection is made here: names are
// answered by an injected table, and refused addresses are judged by the policy alone.
import { describe, expect, test } from "bun:test";
import { FetchError } from "./errors.ts";
import { checkTarget, type Resolver } from "./guard.ts";

const table =
  (entries: Record<string, string[]>, asked: string[] = []): Resolver =>
  async (name) => {
    asked.push(name);
    const addresses = entries[name];
    if (!addresses) throw Object.assign(new Error(`${name} not in test table`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const refusal = async (p: Promise<void>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
};

describe("checkTarget", () => {
  test("a literal loopback address is refused without asking the resolver", async () => {
    const asked: string[] = [];
    for (const url of ["http://127.0.0.1/", "http://127.1:8080/x", "http://[::1]/", "http://2130706433/"]) {
      const err = await refusal(checkTarget(url, { allowPrivate: false, resolver: table({}, asked) }));
      expect(err.reason).toBe("blocked_address");
      expect(err.message).toContain("blocked range: loopback");
    }
    expect(asked).toEqual([]);
  });

  test("a name resolving to a blocked address is refused without echoing the address", async () => {
    const err = await refusal(checkTarget("https://intranet.test/", { allowPrivate: false, resolver: table({ "intranet.test": ["10.1.2.3"] }) }));
    expect(err.reason).toBe("blocked_address");
    expect(err.message).toBe("intranet.test resolves to an address Trove may not fetch");
    expect(err.message).not.toContain("10.1.2.3");
  });

  test("one blocked address among public ones refuses the host", async () => {
    const resolver = table({ "mixed.test": ["93.184.216.34", "192.168.0.9"] });
    expect((await refusal(checkTarget("http://mixed.test/", { allowPrivate: false, resolver }))).reason).toBe("blocked_address");
  });

  test("public addresses pass; private ones pass when allowed; metadata never does", async () => {
    await checkTarget("http://public.test/", { allowPrivate: false, resolver: table({ "public.test": ["93.184.216.34"] }) });
    await checkTarget("http://lan.test/", { allowPrivate: true, resolver: table({ "lan.test": ["192.168.1.10"] }) });
    const err = await refusal(checkTarget("http://169.254.169.254/latest/meta-data", { allowPrivate: true, resolver: table({}) }));
    expect(err.message).toContain("metadata");
  });

  test("a name that does not resolve, or not in time, is not a refusal (the fetch reports it)", async () => {
    await checkTarget("http://nowhere.invalid/", { allowPrivate: false, resolver: table({}) });
    const never: Resolver = () => new Promise(() => {});
    await checkTarget("http://stuck.test/", { allowPrivate: false, resolver: never, timeoutMs: 20 });
  });

  test("schemes other than http(s) are refused", async () => {
    expect((await refusal(checkTarget("file:///etc/passwd", { allowPrivate: true }))).reason).toBe("unsupported_scheme");
    expect((await refusal(checkTarget("gopher://a.test/", { allowPrivate: true }))).reason).toBe("unsupported_scheme");
  });
});
