// Reading a response body: undo Content-Encoding, keep at most maxBytes of the
// decoded bytes, and hang up as soon as the cap is hit so a huge (or endless, or
// zip-bomb) body costs no more than the cap.
import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";
import type { Transform } from "node:stream";

/** What we offer in Accept-Encoding: exactly what decoderFor can undo. */
export const ACCEPT_ENCODING = "gzip, deflate, br";

function decoderFor(encoding: string, firstChunk: Uint8Array): Transform | null {
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      // Sync flush tolerates a body cut short, as browsers do.
      return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case "deflate": {
      // "deflate" should be zlib-wrapped, but some servers send raw deflate: sniff the header.
      const b0 = firstChunk[0] ?? 0, b1 = firstChunk[1] ?? 0;
      const zlibWrapped = (b0 & 0x0f) === 8 && ((b0 << 8) | b1) % 31 === 0;
      const opts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
      return zlibWrapped ? zlib.createInflate(opts) : zlib.createInflateRaw(opts);
    }
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return null; // identity, or something we never asked for: hand the bytes over as they came
  }
}

export interface Body {
  bytes: Uint8Array;
  truncated: boolean;
}

/**
 * Reads `res` to the end or to maxBytes. `abort` is called to hang up the connection once
 * the cap is reached. Rejects with whatever error the response or decoder emits; the
 * caller maps it (and enforces the deadline by destroying the response).
 */
export function readBody(res: IncomingMessage, maxBytes: number, abort: () => void): Promise<Body> {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  return new Promise<Body>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let decoder: Transform | null | undefined; // undefined until the first chunk decides

    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      resolve({ bytes: concat(chunks, size), truncated });
    };
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      decoder?.destroy();
      reject(err);
    };
    const keep = (chunk: Uint8Array) => {
      if (done) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += Math.max(room, 0);
        finish(true);
        decoder?.destroy();
        abort();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };

    res.on("data", (chunk: Buffer) => {
      if (done) return;
      if (decoder === undefined) {
        decoder = decoderFor(encoding, chunk);
        if (decoder) {
          decoder.on("data", keep);
          decoder.on("error", (err) => fail(err));
          decoder.on("end", () => finish(false));
          decoder.on("drain", () => res.resume());
        }
      }
      if (!decoder) return keep(chunk);
      if (!decoder.write(chunk)) res.pause(); // backpressure: do not inflate faster than we keep
    });
    res.on("end", () => {
      if (decoder) decoder.end();
      else finish(false);
    });
    res.on("error", (err) => fail(err));
    res.on("close", () => {
      // Closed without 'end': the peer hung up mid-body.
      if (!res.complete && !done) fail(Object.assign(new Error("connection closed before the body was complete"), { code: "ECONNRESET" }));
    });
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
