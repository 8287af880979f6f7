// The baseline bench:recall compares /query with: Okapi BM25 (k1 1.2, b 0.75) over the raw
// turns of one conversation, lower-cased words, English stop words removed, no stemming.
// It is what anyone would get from the simplest keyword index over the same text.

const K1 = 1.2;
const B = 0.75;

/** The common English stop-word list (NLTK's). */
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its
  itself they them their theirs themselves what which who whom this that these those am is are was were be been being have
  has had having do does did doing a an the and but if or because as until while of at by for with about against between
  into through during before after above below to from up down in out on off over under again further then once here there
  when where why how all any both each few more most other some such no nor not only own same so than too very s t can will
  just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn
  wasn weren won wouldn`.split(/\s+/),
);

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP_WORDS.has(w));
}

export interface Bm25Index<T> {
  search(query: string, limit: number): T[];
}

export function bm25Index<T>(docs: { id: T; text: string }[]): Bm25Index<T> {
  const terms = docs.map((d) => counts(tokens(d.text)));
  const lengths = docs.map((d) => tokens(d.text).length);
  const avg = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const tf of terms) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return {
    search(query, limit) {
      const q = [...new Set(tokens(query))];
      const scored = docs.map((d, i) => {
        const score = q.reduce((s, t) => {
          const f = terms[i]!.get(t) ?? 0;
          return f === 0 ? s : s + (idf(t) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * lengths[i]!) / avg));
        }, 0);
        return { id: d.id, score };
      });
      return scored
        .filter((s) => s.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map((s) => s.id);
    },
  };
}

function counts(words: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}
