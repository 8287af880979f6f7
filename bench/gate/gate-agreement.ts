// Whether what the heuristics kept from a turn agrees with what the dataset's annotators
// noted from it: a fact agrees when at least half the content words (loosely stemmed) of
// its object or value appear in the turn's observations or the QA pairs that cite it. A
// rough check of precision, for turns the heuristics finished with facts.
const STOP = new Set(
  "the a an and or but of to in on at for with from by about as is are was were be been being it its this that these those his her their our my your she he they we you i me him them what when where who why how which did does do has have had not no yes some any very really just also".split(
    " ",
  ),
);

export function contentWords(text: string, exclude: string[] = []): Set<string> {
  const skip = new Set(exclude.map((w) => stem(w.toLowerCase())));
  return new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .filter((w) => w.length >= 3 && !STOP.has(w))
      .map(stem)
      .filter((w) => !skip.has(w)),
  );
}

/** Crude suffix stripping: enough to match "paintings"/"painting"/"painted" with "paint". */
function stem(word: string): string {
  return word.replace(/(?:'s|ing|ed|es|s)$/u, "") || word;
}

export function agreesWithNotes(values: string[], notes: string[], speakers: string[]): boolean {
  const noted = contentWords(notes.join(" "), speakers);
  return values.some((v) => {
    const words = [...contentWords(v, speakers)];
    return words.length > 0 && 2 * words.filter((w) => noted.has(w)).length >= words.length;
  });
}
