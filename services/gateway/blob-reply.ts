// A reply a service left in the blob store (a produced download too large for one bus message): streamed from the
// store to the client as the client reads it, then, for a one-time download, removed.
import type { BlobStore } from "@trove/blobs";
import type { BlobReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";

export async function blobBody(blobs: BlobStore | undefined, reply: BlobReply, log: Logger): Promise<ReadableStream<Uint8Array>> {
  const source = blobs && (await blobs.getStream(reply.blob));
  if (!source) throw new AppError("internal_error", "the reply's blob is missing");
  if (!reply.deleteAfter) return source;
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    blobs.delete(reply.blob).catch((err) => log.error({ err, blob: reply.blob }, "could not remove a sent blob"));
  };
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        try {
          const next = await reader.read();
          if (next.done) {
            c.close();
            remove();
          } else c.enqueue(next.value);
        } catch (err) {
          c.error(err);
          remove();
        }
      },
      // The client went away: the download is not retried from the same blob, so it goes now.
      async cancel(reason) {
        remove();
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
