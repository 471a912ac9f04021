// parseImport choosing the parser by format, limits passed through, and the task on a real worker pool: results
// cross the thread boundary, an ImportFileError arrives with its code.
import { afterAll, describe, expect, test } from "bun:test";
import { importFormats } from "@trove/contracts";
import { TaskFailedError, WorkerPool } from "@trove/workers";
import { zipSync } from "fflate";
import { detectFormat, importParsers, importParseTaskName, parseImport } from "./index.ts";
import { bytes, fileErrorCode, fixture } from "./test-helpers.ts";

describe("parseImport", () => {
  test("has a parser for every import format of the contract", () => {
    expect(Object.keys(importParsers).sort()).toEqual([...importFormats].sort());
  });

  test("dispatches by format: the same bytes read as Pocket give Pocket entries", () => {
    const result = parseImport(fixture("pocket.csv"), "pocket_csv");
    expect(result.entries[0]).toMatchObject({ url: "https://blog.example.com/hello?utm=1&b=2", source: "import:pocket" });
  });

  test("detected format and parse agree for each fixture", () => {
    for (const name of ["chrome-bookmarks.html", "pocket.csv", "instapaper.csv", "readwise.csv"]) {
      const file = fixture(name);
      const format = detectFormat(file);
      expect(format).toBeDefined();
      expect(parseImport(file, format as never).entries.length).toBeGreaterThan(3);
    }
  });

  test("limits given are applied over the defaults", () => {
    expect(parseImport(fixture("pocket.csv"), "pocket_csv", { maxEntries: 2 }).entries).toHaveLength(2);
    expect(parseImport(fixture("pocket.csv"), "pocket_csv", { maxTitleLength: 5 }).entries[0]?.title).toBe("Hello");
  });

  test("an unknown format is unsupported_format", () => {
    expect(fileErrorCode(() => parseImport(bytes("x"), "evernote_enex" as never))).toBe("unsupported_format");
  });
});

describe("the import parse task on a worker pool", () => {
  const pool = new WorkerPool({ script: new URL("../test/worker.ts", import.meta.url), size: 1 });
  afterAll(() => pool.close());

  test("returns the parse result across threads", async () => {
    const result = await pool.run(importParseTaskName, { bytes: fixture("instapaper.csv"), format: "instapaper_csv" });
    expect(result).toEqual(parseImport(fixture("instapaper.csv"), "instapaper_csv"));
  });

  test("a zip bomb fails the task with TaskFailedError carrying code zip_bomb", async () => {
    const bomb = zipSync({ "metadata_0_to_1.json": new Uint8Array(3 * 1024 * 1024) });
    let err: unknown;
    try {
      await pool.run(importParseTaskName, { bytes: bomb, format: "omnivore_zip", limits: { maxZipBytes: 1024 * 1024 } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TaskFailedError);
    expect(err).toMatchObject({ errorName: "ImportFileError", data: { code: "zip_bomb" } });
  });
});
