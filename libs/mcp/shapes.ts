// Compact records for tool answers: what a model needs to pick the next call, not every stored field (content,
// hashes and storage keys stay behind; read_item and read_note give the text).

const clip = (s: unknown, n: number): string | undefined => {
  if (typeof s !== "string" || s === "") return undefined;
  return s.length <= n ? s : `${s.slice(0, n)}…`;
};

/** An item as lists show it. */
export function itemSummary(item: Record<string, any>): Record<string, unknown> {
  return {
    id: item.id,
    title: item.title,
    url: item.url,
    status: item.status,
    tags: item.tags,
    collection: item.collectionName ?? undefined,
    source: item.source ?? undefined,
    createdAt: item.createdAt,
    processedAt: item.processedAt ?? undefined,
    contentAvailable: item.contentAvailable,
    contentSize: item.contentSize,
    notes: clip(item.notes, 300),
  };
}

/** The next offset of a page, or null at the end. */
export function nextOffset(offset: number, shown: number, count: number | undefined): number | null {
  const next = offset + shown;
  return count !== undefined ? (next < count ? next : null) : shown > 0 ? next : null;
}

export { clip };
