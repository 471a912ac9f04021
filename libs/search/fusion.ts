// Reciprocal rank fusion: each list's rank r (1-based) adds weight / (k + r) to the document's score, so a document
// high in both lists ranks first and one list's raw scores (ts_rank, cosine) never have to be compared with the
// other's. k = 60, the usual constant: it keeps one list's first places from drowning the other list.

export const rrfK = 60;

/**
 * Weights of the hybrid search's lists: lexical and semantic count the same, so a document both find ranks above
 * one either finds alone, and a strong lexical match ties with an equally placed semantic one (ties by id).
 */
export const hybridWeights = { lexical: 1, semantic: 1 } as const;

export interface Ranked {
  id: string;
}

/** The fused order of several ranked lists: `{id, score}` best first (ties by id), each id once. */
export function fuseRanks(lists: { ranked: Ranked[]; weight: number }[], k = rrfK): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const { ranked, weight } of lists) {
    ranked.forEach((r, i) => scores.set(r.id, (scores.get(r.id) ?? 0) + weight / (k + i + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
