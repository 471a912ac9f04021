// Files the gateway serves itself (the API reference's and the web app's scripts and styles): text is sent
// gzipped to clients that accept it (about a quarter of the bytes), compressed once and kept.

export interface StaticFile {
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
  gzip?: Uint8Array<ArrayBuffer>;
}

/** The bytes to send for `file`, marking `headers` when they are gzipped (or could have been). */
export function encodedBody(file: StaticFile, request: Request, headers: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  if (!file.contentType.startsWith("text/")) return file.body;
  headers["vary"] = "accept-encoding";
  if (!/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return file.body;
  headers["content-encoding"] = "gzip";
  return (file.gzip ??= Bun.gzipSync(file.body));
}
