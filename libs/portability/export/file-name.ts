// File names inside export ZIPs (notes export, items Markdown export): readable, unique, safe to unpack anywhere.

/** Bytes of a name's title part: far below any file system's limit (255), with the id and folder added. */
export const slugBytes = 80;

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export interface SlugFileNameOptions {
  /** A folder the file goes under (e.g. `archived`), without slashes. */
  folder?: string;
  /** The name's first part when the title leaves no slug (empty, emoji only): `<fallback>-<id>`. */
  fallback: string;
  /** The extension, without the dot. */
  ext: string;
}

/**
 * `[<folder>/]<slug of the title>-<id>.<ext>`. The id makes it unique; the slug keeps letters and digits of any
 * script (NFKC, lower case; accents stay), turns every other run (slashes, dots, spaces, emoji, control
 * characters) into one dash, and is cut at whole characters to at most `slugBytes` UTF-8 bytes. So no name has a
 * path separator, a `..`, a leading dot or a reserved device name, and every name fits any file system.
 */
export function slugFileName(title: string, id: string, opts: SlugFileNameOptions): string {
  const words = title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^[-\p{M}]+|-+$/gu, "");
  let slug = "";
  let bytes = 0;
  for (const { segment } of segmenter.segment(words)) {
    bytes += Buffer.byteLength(segment);
    if (bytes > slugBytes) break;
    slug += segment;
  }
  slug = slug.replace(/-+$/, "");
  return `${opts.folder ? `${opts.folder}/` : ""}${slug || opts.fallback}-${id}.${opts.ext}`;
}
