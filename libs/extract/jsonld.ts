// The page's JSON-LD: every block parsed once (broken JSON skipped), and the first schema.org node of a kind.
import type { DomDocument } from "./dom.ts";

/** The parsed JSON-LD blocks of `doc`, in document order. */
export function jsonLdBlocks(doc: DomDocument): unknown[] {
  const blocks: unknown[] = [];
  for (const script of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      blocks.push(JSON.parse((script.textContent ?? "").replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, "")));
    } catch {
      // A broken block says nothing.
    }
  }
  return blocks;
}

/** Every node among `blocks` (arrays, `@graph`s and nested values searched a few levels deep) whose `@type` passes `isType`. */
export function ldNodes(blocks: unknown[], isType: (type: string) => boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (!value || typeof value !== "object" || depth > 6) return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const obj = value as Record<string, unknown>;
    const type = obj["@type"];
    if ((Array.isArray(type) ? type : [type]).some((t) => typeof t === "string" && isType(t))) out.push(obj);
    for (const v of Object.values(obj)) if (v && typeof v === "object") visit(v, depth + 1);
  };
  for (const block of blocks) visit(block, 0);
  return out;
}

/** The first node among `blocks` (arrays and `@graph`s searched a few levels deep) whose `@type` passes `isType`. */
export function findLdNode(blocks: unknown[], isType: (type: string) => boolean): Record<string, unknown> | null {
  const find = (value: unknown, depth: number): Record<string, unknown> | null => {
    if (!value || typeof value !== "object" || depth > 4) return null;
    if (Array.isArray(value)) {
      for (const v of value) {
        const found = find(v, depth + 1);
        if (found) return found;
      }
      return null;
    }
    const obj = value as Record<string, unknown>;
    const type = obj["@type"];
    if ((Array.isArray(type) ? type : [type]).some((t) => typeof t === "string" && isType(t))) return obj;
    return find(obj["@graph"], depth + 1);
  };
  for (const block of blocks) {
    const found = find(block, 0);
    if (found) return found;
  }
  return null;
}
