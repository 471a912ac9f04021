// Media rules: captured web images keep their source URL; uploads are stored as blobs and served at an
// authenticated URL of this API. Lists never show storage keys.
import type { BlobStore } from "@trove/blobs";
import type { Caller, MediaRefDto, RawReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import type { Logger } from "@trove/log";
import { FetchError, guardedFetch, urlRefusal, type Resolver } from "@trove/webfetch";
import type { ItemsRepository } from "./items.repository.ts";
import { MediaRepository, type MediaRow } from "./media.repository.ts";

/** Largest uploaded image. */
export const maxUploadBytes = 8 * 1024 * 1024;

export const uploadUrl = (itemId: string, mediaId: string) => `/api/items/${itemId}/media/${mediaId}`;

const toDto = (m: MediaRow): MediaRefDto => ({
  id: m.id,
  kind: m.kind,
  url: m.url,
  alt: m.alt,
  title: m.title,
  ...(m.width !== null ? { width: m.width } : {}),
  ...(m.height !== null ? { height: m.height } : {}),
  ...(m.content_type !== null ? { contentType: m.content_type } : {}),
  ...(m.size !== null ? { size: m.size } : {}),
});

// Magic numbers: the bytes must be the image type they claim.
const signatures: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46,
  "image/webp": (b) => String.fromCharCode(...b.slice(0, 4)) === "RIFF" && String.fromCharCode(...b.slice(8, 12)) === "WEBP",
  "image/avif": (b) => String.fromCharCode(...b.slice(4, 12)).startsWith("ftypavi"),
  "image/svg+xml": (b) => /<svg[\s>]/i.test(new TextDecoder().decode(b.slice(0, 2048))),
};

const imageHeaders = { "cache-control": "private, max-age=86400", "x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'" };
// An SVG is a document that can run script: opened directly it gets no privileges on this origin, and browsers
// download it rather than render it in the API's origin.
const svgHeaders = {
  ...imageHeaders,
  "content-security-policy": "default-src 'none'; sandbox",
  "content-disposition": "attachment",
};

/** How the reader's image proxy fetches a captured image: the capture's guard, a smaller budget. */
export interface ImageFetchOptions {
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
}

const proxyLimits = { connectTimeoutMs: 5_000, timeoutMs: 15_000, maxBytes: maxUploadBytes, maxRedirects: 5 };
const imageAccept = "image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.8";

export class MediaService {
  constructor(
    private readonly repo: MediaRepository,
    private readonly items: ItemsRepository,
    private readonly blobs: BlobStore,
    private readonly log: Logger,
    private readonly fetching: ImageFetchOptions = { allowPrivateNetwork: false },
  ) {}

  private async visibleItem(caller: Caller, itemId: string) {
    if (!(await this.items.getById(caller.accountId, itemId, { scope: caller.scope }))) throw new AppError("not_found", "item not found");
  }

  async list(caller: Caller, itemId: string, limit: number, offset: number) {
    await this.visibleItem(caller, itemId);
    const { rows, total } = await this.repo.page(caller.accountId, itemId, limit, offset);
    return { media: rows.map(toDto), limit, offset, count: total, nextOffset: offset + rows.length < total ? offset + rows.length : null };
  }

  /**
   * Stores an uploaded image. The blob is written first and the row inserted in a transaction that holds the item
   * row, so a concurrent delete either waits (and removes the new image with the item) or has already removed the
   * item (404, and the blob just written is removed again): never a foreign-key failure, never an orphan file.
   */
  async upload(caller: Caller, itemId: string, input: { contentType: string; dataBase64: string; alt?: string; title?: string }) {
    await this.visibleItem(caller, itemId);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(input.dataBase64.replace(/\s+/g, ""))) {
      throw new AppError("validation_failed", "dataBase64 is not base64", { fields: { dataBase64: "not valid base64" } });
    }
    const bytes = new Uint8Array(Buffer.from(input.dataBase64, "base64"));
    if (bytes.byteLength > maxUploadBytes) throw new AppError("payload_too_large", `images are limited to ${maxUploadBytes} bytes`, { limit: maxUploadBytes });
    if (!signatures[input.contentType]?.(bytes)) {
      throw new AppError("validation_failed", `the bytes are not a ${input.contentType} image`, { fields: { dataBase64: `not a ${input.contentType} image` } });
    }
    const id = newId();
    const blobKey = `media-${id}`;
    await this.blobs.put(blobKey, bytes);
    try {
      const row = await this.items.transaction(async (tx) => {
        if (!(await tx.getById(caller.accountId, itemId, { scope: caller.scope, lock: true }))) throw new AppError("not_found", "item not found");
        const repo = new MediaRepository(tx.kysely);
        const row: MediaRow = {
          id,
          item_id: itemId,
          position: await repo.nextPosition(caller.accountId, itemId),
          kind: "upload",
          url: uploadUrl(itemId, id),
          alt: input.alt ?? "",
          title: input.title ?? "",
          width: null,
          height: null,
          blob_key: blobKey,
          content_type: input.contentType,
          size: bytes.byteLength,
          created_at: nowSeconds(),
        };
        await repo.insert(caller.accountId, row);
        return row;
      });
      return { media: toDto(row) };
    } catch (err) {
      await this.blobs.delete(blobKey).catch((e) => this.log.error({ err: e, blobKey }, "could not remove the blob of a failed upload"));
      throw err;
    }
  }

  async get(caller: Caller, itemId: string, mediaId: string): Promise<RawReply> {
    await this.visibleItem(caller, itemId);
    const row = await this.repo.get(caller.accountId, itemId, mediaId);
    if (row?.kind === "web") return this.proxied(row.url);
    if (!row || row.kind !== "upload" || !row.blob_key) throw new AppError("not_found", "no image with this id");
    const bytes = await this.blobs.get(row.blob_key);
    if (!bytes) throw new AppError("not_found", "image data missing");
    return {
      body: Buffer.from(bytes).toString("base64"),
      encoding: "base64",
      contentType: row.content_type ?? "application/octet-stream",
      headers: row.content_type === "image/svg+xml" ? svgHeaders : imageHeaders,
    };
  }

  /**
   * A captured image fetched through Trove (the reader's image proxy), so reading never tells the image's host who
   * reads. Only the item's own recorded images are fetched: it is not an open proxy. The bytes must be one of the
   * image types uploads may be; anything else, or a remote failure, is a 404 the page shows as a missing image.
   */
  private async proxied(url: string): Promise<RawReply> {
    const fetch = (at: string) =>
      guardedFetch(at, { allowPrivate: this.fetching.allowPrivateNetwork, resolver: this.fetching.resolver, accept: imageAccept, ...proxyLimits });
    let fetched;
    try {
      fetched = await fetch(url).catch((err) => {
        // Captured image URLs are upgraded to https (libs/extract/media.ts); a host that only speaks http still
        // serves its image here, where no browser's mixed-content rule applies.
        if (urlRefusal(err) || !url.startsWith("https://")) throw err;
        return fetch(`http://${url.slice("https://".length)}`);
      });
    } catch (err) {
      const refused = urlRefusal(err);
      if (refused) throw refused;
      throw new AppError("not_found", `the image could not be fetched: ${err instanceof FetchError ? err.reason : "network error"}`);
    }
    if (fetched.status >= 400) throw new AppError("not_found", `the image's site answered HTTP ${fetched.status}`);
    if (fetched.truncated) throw new AppError("payload_too_large", `images are limited to ${maxUploadBytes} bytes`, { limit: maxUploadBytes });
    const type = Object.keys(signatures).find((t) => signatures[t]!(fetched.bytes));
    if (!type) throw new AppError("not_found", "the address did not answer with an image");
    return {
      body: Buffer.from(fetched.bytes).toString("base64"),
      encoding: "base64",
      contentType: type,
      headers: type === "image/svg+xml" ? svgHeaders : imageHeaders,
    };
  }

  /** Records the images a capture found, in order (uploads stay, after them), inside the capture's transaction. */
  async replaceWebIn(tx: ItemsRepository, accountId: string, itemId: string, images: { url: string; alt: string; title: string; width?: number; height?: number }[]) {
    const now = nowSeconds();
    await new MediaRepository(tx.kysely).replaceWeb(
      accountId,
      itemId,
      images.map((m, position) => ({
        id: newId(),
        position: position - 100_000, // before any upload
        kind: "web" as const,
        url: m.url,
        alt: m.alt,
        title: m.title,
        width: m.width ?? null,
        height: m.height ?? null,
        blob_key: null,
        content_type: null,
        size: null,
        created_at: now,
      })),
    );
  }

  /** Removes blobs whose rows are gone (after the deleting transaction committed). */
  async dropBlobs(keys: string[]) {
    for (const key of keys) await this.blobs.delete(key).catch((err) => this.log.error({ err, key }, "could not remove a blob"));
  }
}
