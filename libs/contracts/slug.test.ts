import { expect, test } from "bun:test";
import { slugify } from "./slug.ts";

test.each([
  ["Machine Learning", "machine-learning"],
  ["  Café Crème ", "cafe-creme"],
  ["Straße", "strasse"],
  ["C++ / Rust!", "c-rust"],
  ["Ørsted Æble Łódź", "orsted-aeble-lodz"],
  ["already-a-slug", "already-a-slug"],
  ["日本語", ""],
])("%s -> %s", (name, slug) => {
  expect(slugify(name)).toBe(slug);
});
