// The ZIP reader under hostile and damaged archives: bombs (one entry, many entries, lying sizes), archives cut
// short or without their central directory, unsupported compression. Inflated bytes are counted, never declared.
import { describe, expect, test } from "bun:test";
import { strToU8, Zip, ZipDeflate, zipSync, type Zippable } from "fflate";
import { ImportFileError } from "./errors.ts";
import { defaultImportLimits, resolveLimits } from "./limits.ts";
import { centralDirectoryAt, fileErrorCode, joinBytes, repeatZip } from "./test-helpers.ts";
import { readZip } from "./zip.ts";

const all = () => true;
const text = (data: Uint8Array) => new TextDecoder().decode(data);

/** An archive streamed entry by entry (data descriptors, as streaming writers make them). */
function streamedZip(entries: [string, number, number][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const mib = new Uint8Array(1024 * 1024);
  for (const [name, mebibytes, tailByte] of entries) {
    const file = new ZipDeflate(name, { level: 1 });
    zip.add(file);
    for (let i = 0; i < mebibytes; i++) file.push(mib);
    file.push(new Uint8Array([tailByte]), true);
  }
  zip.end();
  return joinBytes(parts);
}

/** A one-entry archive of `mebibytes` MiB of zeros, built in milliseconds. */
const zerosBomb = (name: string, mebibytes: number) => repeatZip([{ name, mebibytes }]);

const three: Zippable = {
  "a.txt": strToU8("first file"),
  "dir/b.txt": strToU8("second file ".repeat(2000)),
  "c.txt": strToU8("third file ".repeat(2000)),
};

describe("zip bombs", () => {
  test("one entry inflating past the per-entry limit fails alone; the others are read (5 MiB of zeros, limit 1 MiB)", () => {
    const bomb = zipSync({ "a.txt": strToU8("before"), "zeros.bin": new Uint8Array(5 * 1024 * 1024), "c.txt": strToU8("after") });
    expect(bomb.length).toBeLessThan(10_000);
    const read = readZip(bomb, resolveLimits({ maxZipEntryBytes: 1024 * 1024 }), all);
    expect(read.entries.map((e) => [e.name, text(e.data)])).toEqual([
      ["a.txt", "before"],
      ["c.txt", "after"],
    ]);
    expect(read.failed).toEqual([{ name: "zeros.bin", index: 1, reason: `expands past ${1024 * 1024} bytes: not read (a ZIP bomb?)`, tooLarge: true }]);
  });

  test("300 MiB of zeros in one entry stops at the default 16 MiB entry limit, its inflating stopped there", () => {
    const bomb = zerosBomb("big.json", 300);
    expect(bomb.length).toBeLessThan(400 * 1024);
    // The archive limit counts every byte inflated, kept or not: were the entry inflated to its end, 300 MiB would
    // pass 256 and the whole archive be refused.
    const read = readZip(bomb, defaultImportLimits, all);
    expect(read.entries).toEqual([]);
    expect(read.failed).toEqual([{ name: "big.json", index: 0, reason: `expands past ${16 * 1024 * 1024} bytes: not read (a ZIP bomb?)`, tooLarge: true }]);
  });

  test("four entries of 60 MiB: each fails at the entry limit, together they stay within the archive limit", () => {
    const zip = repeatZip(["a", "b", "c", "d"].map((n) => ({ name: `content/${n}.html`, mebibytes: 60, unit: "<p>bomb bomb</p>" })));
    const read = readZip(zip, defaultImportLimits, all);
    expect(read.failed.map((f) => [f.name, f.tooLarge])).toEqual([
      ["content/a.html", true],
      ["content/b.html", true],
      ["content/c.html", true],
      ["content/d.html", true],
    ]);
  });

  test("the bomb builder makes a real archive: within limits its 3 MiB of zeros read whole", () => {
    const [entry] = readZip(zerosBomb("small.bin", 3), defaultImportLimits, all).entries;
    expect(entry?.data.length).toBe(3 * 1024 * 1024);
    expect(entry?.data.every((b) => b === 0)).toBe(true);
  });

  test("entries each under the entry limit but together past the archive limit: zip_bomb", () => {
    const parts = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`part${i}.bin`, new Uint8Array(400 * 1024)]));
    const limits = resolveLimits({ maxZipEntryBytes: 512 * 1024, maxZipBytes: 1024 * 1024 });
    expect(fileErrorCode(() => readZip(zipSync(parts), limits, all))).toBe("zip_bomb");
    // The same archive within limits reads whole.
    expect(readZip(zipSync(parts), defaultImportLimits, all).entries.map((e) => e.data.length)).toEqual([409_600, 409_600, 409_600, 409_600]);
  });

  test("declared sizes that lie (1 byte declared, 5 MiB real) are not trusted", () => {
    const zip = zipSync({ "liar.bin": new Uint8Array(5 * 1024 * 1024) });
    const view = new DataView(zip.buffer, zip.byteOffset);
    view.setUint32(22, 1, true); // local header: uncompressed size
    view.setUint32(centralDirectoryAt(zip) + 24, 1, true); // central directory: uncompressed size
    expect(readZip(zip, resolveLimits({ maxZipEntryBytes: 1024 * 1024 }), all).failed).toMatchObject([{ name: "liar.bin", tooLarge: true }]);
    expect(fileErrorCode(() => readZip(zip, resolveLimits({ maxZipBytes: 1024 * 1024 }), all))).toBe("zip_bomb");
    // Within limits, the real bytes are read, not the declared one.
    expect(readZip(zip, defaultImportLimits, all).entries[0]?.data.length).toBe(5 * 1024 * 1024);
  });

  test("more entries than maxZipEntries: zip_bomb, even when none is wanted", () => {
    expect(fileErrorCode(() => readZip(zipSync(three), resolveLimits({ maxZipEntries: 2 }), () => false))).toBe("zip_bomb");
    expect(readZip(zipSync(three), resolveLimits({ maxZipEntries: 3 }), all).entries).toHaveLength(3);
  });

  test("entries not wanted are skipped without inflating: a bomb that is not read does not count", () => {
    const zip = zipSync({ "wanted.txt": strToU8("ok"), "zeros.bin": new Uint8Array(5 * 1024 * 1024) });
    const read = readZip(zip, resolveLimits({ maxZipEntryBytes: 1024 * 1024 }), (name) => name.endsWith(".txt"));
    expect(read.entries.map((e) => [e.name, text(e.data)])).toEqual([["wanted.txt", "ok"]]);
  });
});

describe("damaged archives", () => {
  test("a whole archive reads every wanted entry in order with its position", () => {
    const read = readZip(zipSync(three), defaultImportLimits, (name) => name !== "dir/b.txt");
    expect(read.entries.map((e) => [e.name, e.index])).toEqual([
      ["a.txt", 0],
      ["c.txt", 2],
    ]);
    expect(text(read.entries[0]?.data ?? new Uint8Array())).toBe("first file");
    expect(read.failed).toEqual([]);
    expect(read.truncated).toBeUndefined();
  });

  test("streamed entries (data descriptors, sizes unknown up front) read whole", () => {
    const read = readZip(streamedZip([["one.bin", 1, 7], ["two.bin", 2, 9]]), defaultImportLimits, all);
    expect(read.entries.map((e) => [e.name, e.data.length, e.data.at(-1)])).toEqual([
      ["one.bin", 1024 * 1024 + 1, 7],
      ["two.bin", 2 * 1024 * 1024 + 1, 9],
    ]);
  });

  test("no central directory (cut right before it): every entry read, the archive marked truncated", () => {
    const zip = zipSync(three);
    const read = readZip(zip.subarray(0, centralDirectoryAt(zip)), defaultImportLimits, all);
    expect(read.entries.map((e) => e.name)).toEqual(["a.txt", "dir/b.txt", "c.txt"]);
    expect(read.truncated).toBe("the archive's end (central directory) is missing: cut short?");
  });

  test("cut inside the third entry's data: the first two read, the third reported as cut off", () => {
    const zip = zipSync(three);
    const read = readZip(zip.subarray(0, centralDirectoryAt(zip) - 40), defaultImportLimits, all);
    expect(read.entries.map((e) => e.name)).toEqual(["a.txt", "dir/b.txt"]);
    expect(read.failed).toEqual([{ name: "c.txt", index: 2, reason: "cut off: the archive ends inside it" }]);
    expect(read.truncated).toBeDefined();
  });

  test("an entry with an unsupported compression method is reported; the others are read", () => {
    const zip = zipSync({ "a.txt": strToU8("aaaa".repeat(100)), "b.txt": strToU8("bbbb".repeat(100)) });
    new DataView(zip.buffer, zip.byteOffset).setUint16(8, 12, true); // a.txt: bzip2
    const read = readZip(zip, defaultImportLimits, all);
    expect(read.entries.map((e) => e.name)).toEqual(["b.txt"]);
    expect(read.failed).toEqual([{ name: "a.txt", index: 0, reason: "unsupported ZIP compression method 12" }]);
  });

  test("a corrupted DEFLATE stream is a failed entry, not a crash", () => {
    const zip = zipSync({ "a.txt": strToU8("some text that compresses ".repeat(50)), "b.txt": strToU8("fine") });
    // The first entry's data starts after its 30-byte header and 5-byte name; garble it.
    zip.fill(0xff, 35, 45);
    const read = readZip(zip, defaultImportLimits, all);
    expect(read.failed.map((f) => f.name)).toEqual(["a.txt"]);
    expect(read.failed[0]?.reason).toStartWith("damaged entry");
  });

  test("bytes that are not a ZIP are corrupt_file", () => {
    expect(fileErrorCode(() => readZip(strToU8("plain text"), defaultImportLimits, all))).toBe("corrupt_file");
  });
});
