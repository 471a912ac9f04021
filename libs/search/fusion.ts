// Reciprocal rank fusion: each list's rank r (1-based) adds weight / (k + r) to the document's score, so a document
// high in both lists ranks first and one list's raw scores (ts_rank, cosine) never have to be compared with the
// other's. k = 60, the usual constant: it keeps one list's first places from drowning the other list.

export const rrfK = 60;

/**
 * Weights of the hybrid search's lists: lexical and semantic count the same, so a document both find ranks above
 * one either finds alone. Equal scores (the lexical first and the semantic first, when they differ) go to the
 * earlier list, lexical: a document holding the query's words comes before one that only means the same.
 */
export const hybridWeights = { lexical: 1, semantic: 1 } as const;

export interface Ranked {
  id: string;
}

/**
 * The fused order of several ranked lists: `{id, score}` best first, each id once. Equal scores: the one placed in
 * an earlier list first, then the better rank there, then by id.
 */
export function fuseRanks(lists: { ranked: Ranked[]; weight: number }[], k = rrfK): { id: string; score: number }[] {
  const fused = new Map<string, { id: string; score: number; list: number; rank: number }>();
  lists.forEach(({ ranked, weight }, list) => {
    ranked.forEach((r, rank) => {
      const f = fused.get(r.id);
      if (f) f.score += weight / (k + rank + 1);
      else fused.set(r.id, { id: r.id, score: weight / (k + rank + 1), list, rank });
    });
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.list - b.list || a.rank - b.rank || (a.id < b.id ? -1 : 1))
    .map(({ id, score }) => ({ id, score }));
}
