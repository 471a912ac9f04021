// The streaming side of both blob stores: files in a scratch directory, and the NATS Object Store at NATS_URL
// (when set) under a fresh bucket prefix.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "bun:test";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { FileBlobStore, openBlobs, type BlobStore } from "./index.ts";

/** `n` chunks of `size` bytes with a pattern, so a reordered or lost chunk shows. */
async function* chunks(n: number, size: number, failAt?: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new Error("the source failed");
    yield new Uint8Array(size).map((_, k) => (i * 31 + k) % 251);
  }
}

async function read(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function contract(name: string, open: () => Promise<BlobStore>) {
  describe(`${name} blob store`, () => {
    test("putStream then getStream: the same bytes, over many chunks (several store chunks)", async () => {
      const blobs = await open();
      const parts: Uint8Array[] = [];
      for await (const c of chunks(50, 10_000)) parts.push(c);
      const expected = new Uint8Array(Buffer.concat(parts));
      await blobs.putStream("stream-a", chunks(50, 10_000));
      expect(await read((await blobs.getStream("stream-a"))!)).toEqual(expected);
      expect(await blobs.get("stream-a")).toEqual(expected);
      await blobs.delete("stream-a");
      expect(await blobs.getStream("stream-a")).toBeUndefined();
    });

    test("a ReadableStream source, an empty blob, and a missing key", async () => {
      const blobs = await open();
      await blobs.putStream("stream-b", new Response("hello, stream").body!);
      expect(new TextDecoder().decode(await read((await blobs.getStream("stream-b"))!))).toBe("hello, stream");
      await blobs.putStream("stream-empty", chunks(0, 1));
      expect((await read((await blobs.getStream("stream-empty"))!)).length).toBe(0);
      expect(await blobs.getStream("stream-never-written")).toBeUndefined();
      await blobs.delete("stream-b");
      await blobs.delete("stream-empty");
    });

    test("a source that fails leaves no blob", async () => {
      const blobs = await open();
      await expect(blobs.putStream("stream-failed", chunks(20, 10_000, 10))).rejects.toThrow("the source failed");
      expect(await blobs.list()).not.toContain("stream-failed");
      expect(await blobs.getStream("stream-failed")).toBeUndefined();
    });

    test("a reader that stops early can cancel, and the blob stays readable", async () => {
      const blobs = await open();
      await blobs.putStream("stream-c", chunks(40, 10_000));
      const reader = (await blobs.getStream("stream-c"))!.getReader();
      expect((await reader.read()).done).toBe(false);
      await reader.cancel();
      expect((await read((await blobs.getStream("stream-c"))!)).length).toBe(400_000);
      await blobs.delete("stream-c");
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "trove-blobs-"));
const file = new FileBlobStore(dir);
contract("file", async () => file);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  let opened: Promise<BlobStore> | undefined;
  contract("NATS", () => (opened ??= openBlobs({ natsUrl, prefix, dataDir: dir })));
  afterAll(async () => {
    await (await opened)?.close();
    await dropNatsNamespace(natsUrl, prefix);
  });
}
