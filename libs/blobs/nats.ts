// Blobs in the NATS Object Store (the distributed deployment). Imported only when a NATS URL is given, so the
// embedded process never loads the NATS client.
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import { Objm, setSha256Backend, type ObjectStore } from "@nats-io/obj";
import { safeKey, type BlobStore, type ByteSource } from "./store.ts";

// The object store hashes every chunk; its default is a JavaScript SHA-256 (36 MiB/s here, about a sixth of an
// export's CPU), node:crypto's runs near 1 GiB/s. Process-wide, and the same digest either way.
setSha256Backend("native");

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

