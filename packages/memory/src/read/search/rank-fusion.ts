// Reciprocal rank fusion (Cormack et al., 2009): each retriever contributes
// weight / (k + position) for every item it returns, so lists whose raw scores are not
// comparable (ts_rank of a short fact vs. a long turn, or a cosine distance) can be
// merged, and an item several retrievers agree on rises.

export interface RankedList<T> {
  name: string;
  /** Multiplies the list's contributions (default 1): how much its ranking is trusted against the others'. */
  weight?: number;
  /** Best first; `key` identifies the same item across lists. */
  items: { key: string; item: T }[];
}

export interface Fused<T> {
  key: string;
  item: T;
  score: number;
  /** 1-based position of the item in each list that returned it. */
  ranks: Record<string, number>;
}

/** k = 60 is the constant of the original paper; it damps the weight of the very first positions. */
export const RRF_K = 60;

export function fuseRankings<T>(lists: RankedList<T>[], tiebreak: (a: T, b: T) => number = () => 0, k = RRF_K): Fused<T>[] {
  const fused = new Map<string, Fused<T>>();
  for (const list of lists) {
    list.items.forEach(({ key, item }, index) => {
      const entry = fused.get(key) ?? { key, item, score: 0, ranks: {} };
      entry.score += (list.weight ?? 1) / (k + index + 1);
      entry.ranks[list.name] = index + 1;
      fused.set(key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || tiebreak(a.item, b.item));
}
