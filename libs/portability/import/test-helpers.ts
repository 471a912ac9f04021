// Shared by the import tests: fixture bytes, text as bytes, and what PostgreSQL can store.
import { readFileSync } from "node:fs";
import { expect } from "bun:test";
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
