// What every blob store offers, and the key rule both keep.
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


/** A key as both stores take it (a file name, an object name): refused otherwise. */
export const safeKey = (key: string) => {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(key)) throw new Error(`invalid blob key ${key}`);
  return key;
};

