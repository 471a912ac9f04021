import { describe, expect, test } from "bun:test";
import { AppError } from "@trove/errors";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";

const norm = (s: string) => normalizeUrl(parseSaveUrl(s));

describe("normalizeUrl", () => {
  test.each([
    ["HTTPS://Example.TEST/Path", "https://example.test/Path"],
    ["http://example.test:80/a", "http://example.test/a"],
    ["https://example.test:443/a", "https://example.test/a"],
    ["https://example.test:8443/a", "https://example.test:8443/a"],
    ["https://example.test/a#section", "https://example.test/a"],
    ["https://example.test/a?utm_source=x&utm_campaign=y", "https://example.test/a"],
    ["https://example.test/a?id=1&fbclid=abc&gclid=z", "https://example.test/a?id=1"],
    ["https://example.test/a?b=2&a=1", "https://example.test/a?b=2&a=1"],
    ["https://example.test/search?q=a%20b", "https://example.test/search?q=a%20b"],
    ["http://user:pass@example.test/private", "http://example.test/private"],
    ["https://token@Example.test:443/a?x=1", "https://example.test/a?x=1"],
  ])("%s -> %s", (input, expected) => {
    expect(norm(input)).toBe(expected);
  });

  test("equal pages hash equal, different pages differ", () => {
    expect(urlHash(norm("https://a.test/x#1"))).toBe(urlHash(norm("HTTPS://A.test/x?utm_source=t")));
    expect(urlHash(norm("https://a.test/x"))).not.toBe(urlHash(norm("https://a.test/y")));
  });

  test.each(["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "mailto:a@b.test", "ftp://a.test/", "//a.test/x", ""])(
    "%s is refused with validation_failed",
    (input) => {
      expect(() => parseSaveUrl(input)).toThrow(AppError);
      try {
        parseSaveUrl(input);
      } catch (e) {
        expect((e as AppError).code).toBe("validation_failed");
      }
    },
  );
});
