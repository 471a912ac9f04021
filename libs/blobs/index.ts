// Blob storage for uploaded files: files under the data directory (embedded), the NATS Object Store (distributed).
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { Objm, type ObjectStore } from "@nats-io/obj";

export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  delete(key: string): Promise<void>;
  /** Every stored key (finding orphans: blobs no row refers to). */
  list(): Promise<string[]>;
  close(): Promise<void>;
}

const safeKey = (key: string) => {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(key)) throw new Error(`invalid blob key ${key}`);
  return key;
};

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
export async function openBlobs(opts: { natsUrl?: string; prefix: string; dataDir: string }): Promise<BlobStore> {
  if (!opts.natsUrl) return new FileBlobStore(join(opts.dataDir, "blobs"));
  const nc = await connect({ servers: opts.natsUrl, name: "trove-blobs" });
  return new NatsBlobStore(nc, `${opts.prefix}_blobs`);
}
