// Shared by the import tests: fixture bytes, text as bytes, what PostgreSQL can store, and ZIP bombs built fast.
import { readFileSync } from "node:fs";
import { expect } from "bun:test";
import { Deflate } from "fflate";
import { ImportFileError, type ImportFileErrorCode } from "./errors.ts";

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
}

export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What text and jsonb columns accept: no NUL, no lone surrogate, anywhere in the value. */
export function storable(value: unknown): boolean {
  const json = JSON.stringify(value);
  return !json.includes("\\u0000") && !loneSurrogate.test(json) && !/\\ud[89a-f][0-9a-f]{2}/i.test(json);
}

/** The code of the ImportFileError `fn` throws (failing the test when it throws anything else or nothing). */
export function fileErrorCode(fn: () => unknown): ImportFileErrorCode | "returned" {
  try {
    fn();
    return "returned";
  } catch (err) {
    expect(err).toBeInstanceOf(ImportFileError);
    return (err as ImportFileError).code;
  }
}

/** Where an archive's first central directory header starts (cutting there leaves the entries, not the directory). */
export function centralDirectoryAt(zip: Uint8Array): number {
  for (let i = 0; i < zip.length - 4; i++) {
    if (zip[i] === 0x50 && zip[i + 1] === 0x4b && zip[i + 2] === 0x01 && zip[i + 3] === 0x02) return i;
  }
  throw new Error("no central directory");
}

export type RepeatZipEntry = { name: string; bytes: Uint8Array } | { name: string; mebibytes: number; unit?: string };

/**
 * A ZIP archive built in milliseconds however far its entries inflate. An entry of `mebibytes` MiB of a repeated
 * `unit` (zeros by default; its length must divide 1 MiB) is DEFLATE compressed one MiB at a time: the block for
 * a MiB that follows the same MiB is the same every time, so it is made once and repeated. Entries given as
 * `bytes` are stored. CRCs are left 0 (the reader, like fflate, does not check them; a bomb would not care).
 */
export function repeatZip(entries: readonly RepeatZipEntry[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const stored = "bytes" in entry;
    const data = stored ? entry.bytes : repeatedDeflate(entry.mebibytes, entry.unit);
    const size = stored ? entry.bytes.length : entry.mebibytes * 1024 * 1024;
    const name = new TextEncoder().encode(entry.name);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, stored ? 0 : 8, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, stored ? 0 : 8, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, data);
    centrals.push(central);
    offset += local.length + data.length;
  }
  const directory = joinBytes(centrals);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, directory.length, true);
  ev.setUint32(16, offset, true);
  return joinBytes([...locals, directory, end]);
}

function repeatedDeflate(mebibytes: number, unit = "\u0000"): Uint8Array {
  const unitBytes = new TextEncoder().encode(unit);
  if ((1024 * 1024) % unitBytes.length !== 0) throw new Error("the unit's length must divide 1 MiB");
  const mib = new Uint8Array(1024 * 1024);
  for (let at = 0; at < mib.length; at += unitBytes.length) mib.set(unitBytes, at);
  const out: Uint8Array[] = [];
  const deflate = new Deflate({ level: 1 }, (chunk) => out.push(chunk));
  deflate.push(mib);
  deflate.flush(true);
  const first = joinBytes(out.splice(0));
  deflate.push(mib);
  deflate.flush(true);
  const next = joinBytes(out.splice(0));
  deflate.push(new Uint8Array(0), true);
  return joinBytes([first, ...Array<Uint8Array>(mebibytes - 1).fill(next), ...out]);
}

export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
