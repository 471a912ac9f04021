// The shapes extraction produces; index.ts re-exports them as the package API.

/** One captured image; `id` is stable per item ("m1", "m2", ... in document order). */
export interface MediaEntry {
  id: string;
  url: string;
  alt: string;
  title: string;
  width?: number;
  height?: number;
}

/** Structured content, schema version 2 (the `ItemContent` of the API). */
export interface ItemContent {
  schemaVersion: 2;
  meta: { frontmatter: Record<string, unknown> };
  items: Record<string, { format: "markdown"; markdown: string; meta?: Record<string, unknown> }>;
  media: MediaEntry[];
}

export interface Extraction {
  title: string;
  /** Absolute URL or "". */
  favicon: string;
  byline: string | null;
  published: string | null;
  lang: string | null;
  siteName: string | null;
  excerpt: string | null;
  /** The rendered Markdown (also `content.items.main.markdown`). */
  markdown: string;
  content: ItemContent;
  /** UTF-8 bytes of `markdown`, after the cap. */
  size: number;
  /** True when the Markdown was cut at `contentCapBytes`. */
  truncated: boolean;
}

export interface ExtractOptions {
  /** The page address: base for relative links, `source` in the frontmatter. */
  url: string;
  /** The response's Content-Type, parameters allowed ("text/html; charset=utf-8"). */
  contentType?: string;
  /** Element budget of an HTML page (default `pageElementLimit`); a page with more is ExtractError page_too_complex. */
  maxElements?: number;
}
