// Blobs as files under the data directory (the embedded deployment).
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { safeKey, type BlobStore, type ByteSource } from "./store.ts";

export class FileBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  async put(key: string, bytes: Uint8Array) {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, safeKey(key));
    // Write then rename, so a reader never sees half a file.
    await Bun.write(`${path}.tmp`, bytes);
    await rename(`${path}.tmp`, path);
  }

  async get(key: string) {
    const file = Bun.file(join(this.dir, safeKey(key)));
    return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : undefined;
  }

  async putStream(key: string, source: ByteSource) {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, safeKey(key));
    const out = await open(`${path}.tmp`, "w");
    try {
      // One awaited write per chunk: the producer is held back by the disk.
      for await (const chunk of source) await out.write(chunk);
      await out.close();
    } catch (err) {
      await out.close().catch(() => {});
      await rm(`${path}.tmp`, { force: true });
      throw err;
    }
    await rename(`${path}.tmp`, path);
  }

  async getStream(key: string) {
    const file = Bun.file(join(this.dir, safeKey(key)));
    return (await file.exists()) ? file.stream() : undefined;
  }

  async delete(key: string) {
    await rm(join(this.dir, safeKey(key)), { force: true });
  }

  async list() {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => !n.endsWith(".tmp"));
  }

  async close() {}
}

