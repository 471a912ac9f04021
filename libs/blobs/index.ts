// Blob storage for uploaded files and produced downloads: files under the data directory (embedded), the NATS
// Object Store (distributed).
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import { Objm, setSha256Backend, type ObjectStore } from "@nats-io/obj";
import { connectNats, type NatsAccess } from "@trove/bus";

// The object store hashes every chunk; its default is a JavaScript SHA-256 (36 MiB/s here, about a sixth of an
// export's CPU), node:crypto's runs near 1 GiB/s. Process-wide, and the same digest either way.
setSha256Backend("native");

export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores what the source yields, reading it as fast as it is written (never all of it in memory). */
  putStream(key: string, source: ByteSource): Promise<void>;
  /** The blob as a stream read on demand, so a slow reader holds back the store; undefined when there is none. */
  getStream(key: string): Promise<ReadableStream<Uint8Array> | undefined>;
  delete(key: string): Promise<void>;
  /** Every stored key (finding orphans: blobs no row refers to). */
  list(): Promise<string[]>;
  close(): Promise<void>;
}

const safeKey = (key: string) => {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(key)) throw new Error(`invalid blob key ${key}`);
  return key;
};

/** An async iterable as a stream that asks it for the next chunk only when read. */
function streamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const next = await it.next();
        if (next.done) c.close();
        else c.enqueue(next.value);
      },
      async cancel(reason) {
        await it.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

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

export class NatsBlobStore implements BlobStore {
  private opened: Promise<ObjectStore> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
  ) {}

  // The bucket is made on first use: services that never store a file add no stream to the server.
  private store(): Promise<ObjectStore> {
    this.opened ??= new Objm(this.nc).create(this.bucket);
    this.opened.catch(() => (this.opened = undefined));
    return this.opened;
  }

  async put(key: string, bytes: Uint8Array) {
    await (await this.store()).putBlob({ name: safeKey(key) }, bytes);
  }

  async get(key: string) {
    return (await (await this.store()).getBlob(safeKey(key))) ?? undefined;
  }

  async putStream(key: string, source: ByteSource) {
    // The store reads the stream one chunk per acknowledged publish; a failed put removes the chunks it wrote.
    const stream = source instanceof ReadableStream ? source : streamOf(source);
    await (await this.store()).put({ name: safeKey(key) }, stream);
  }

  async getStream(key: string) {
    // The store's own get() pushes every chunk into its stream as fast as the server sends them, so a slow reader
    // would end up holding the whole object: read the chunks with an ordered pull consumer instead, one per pull.
    const info = await (await this.store()).info(safeKey(key));
    if (!info || info.deleted) return undefined;
    let left = info.size;
    if (left === 0) return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    // One filter subject as a string: a list of them needs NATS 2.10.
    const chunks = await jetstream(this.nc).consumers.get(`OBJ_${this.bucket}`, { filter_subjects: `$O.${this.bucket}.C.${info.nuid}` });
    return new ReadableStream<Uint8Array>({
      async pull(c) {
        const m = await chunks.next({ expires: 30_000 });
        if (!m) throw new Error(`blob ${key}: no chunk within 30 s`);
        left -= m.data.length;
        c.enqueue(m.data);
        if (left <= 0) {
          c.close();
          await chunks.delete().catch(() => {});
        }
      },
      cancel: () => chunks.delete().then(() => undefined, () => undefined),
    });
  }

  async delete(key: string) {
    await (await this.store()).delete(safeKey(key)).catch(() => {});
  }

  async list() {
    return (await (await this.store()).list()).filter((e) => !e.deleted).map((e) => e.name);
  }

  async close() {
    await this.nc.close();
  }
}

/** The NATS Object Store when a URL is given, else files in `<dataDir>/blobs`. */
export async function openBlobs(opts: { natsUrl?: string; prefix: string; dataDir: string; access?: NatsAccess }): Promise<BlobStore> {
  if (!opts.natsUrl) return new FileBlobStore(join(opts.dataDir, "blobs"));
  // The same credentials as the process's bus: the server lets each user at the buckets it needs.
  const nc = await connectNats(opts.natsUrl, opts.access, { name: "trove-blobs" });
  return new NatsBlobStore(nc, `${opts.prefix}_blobs`);
}
