// Blob storage for uploaded files and produced downloads: files under the data directory (embedded), the NATS
// Object Store (distributed).
import { join } from "node:path";
import type { NatsAccess } from "@trove/bus";
import { FileBlobStore } from "./file.ts";
import type { BlobStore } from "./store.ts";

export { FileBlobStore } from "./file.ts";
export type { BlobStore, ByteSource } from "./store.ts";

/** The NATS Object Store when a URL is given, else files in `<dataDir>/blobs`. */
export async function openBlobs(opts: { natsUrl?: string; prefix: string; dataDir: string; access?: NatsAccess }): Promise<BlobStore> {
  if (!opts.natsUrl) return new FileBlobStore(join(opts.dataDir, "blobs"));
  // The same credentials as the process's bus: the server lets each user at the buckets it needs.
  const [{ connectNats }, { NatsBlobStore }] = await Promise.all([import("@trove/bus/connect.ts"), import("./nats.ts")]);
  const nc = await connectNats(opts.natsUrl, opts.access, { name: "trove-blobs" });
  return new NatsBlobStore(nc, `${opts.prefix}_blobs`);
}
