// What the stand-in model answers for one turn: the dataset's annotations of it as Recall's
// extraction diff (the model schema of packages/extraction/src/model-output.ts). Each annotation
// sentence gives the speaker as a person, the other named things in it (standin-names.ts), one fact
// (standin-facts.ts), and the people and pets it names with a kin or pet word as relations. Every
// fact quotes, verbatim, the sentence of the turn's own text that shares the most words with the
// annotation, so Recall's validation finds it in the source; its validity starts at the session's
// date, or where the annotation's time phrase ("last year", "next month") puts it.
import { findTemporalPhrases, splitSentences, validityFor, type FactAspect } from "@recall/heuristics";
import type { ModelDiff } from "@recall/extraction";
import type { AnnotatedTurn, Annotation } from "./standin-data";
import { factOf, kinFacts, type Fact } from "./standin-facts";

export type { ModelDiff };
import { namedThings, type NamedThing } from "./standin-names";

type Entity = ModelDiff["entities"][number];
type Attribute = ModelDiff["attributes"][number];
type Relation = ModelDiff["relations"][number];

const CONFIDENCE = 0.95;

export const emptyModelDiff = (): ModelDiff => ({
  entities: [],
  attributes: [],
  relations: [],
  instructions: [],
  revocations: [],
  uncertainties: [],
});

/**
 * `known`: the types of the entities the request says are known (by lower-cased name); a name found
 * there keeps its type, as a model told "Max (pet)" would, so memory holds one Max.
 */
export function standinDiff(turn: AnnotatedTurn, known: ReadonlyMap<string, string> = new Map()): ModelDiff {
  const diff = emptyModelDiff();
  const entities = new Map<string, Entity>();
  const facts = new Set<string>();
  const addEntity = (thing: NamedThing) => {
    const key = thing.name.toLowerCase();
    const type = known.get(key) ?? thing.type;
    if (!entities.has(key)) entities.set(key, { name: thing.name, type, memory_category: categoryOfEntity(type), aliases: [] });
  };
  for (const note of turn.annotations) {
    addEntity({ name: note.speaker, type: "person" });
    const { names, evidence, read } = readingOf(turn, note);
    names.forEach(addEntity);
    const scored = { evidence, confidence: CONFIDENCE, significance: "medium" as const };
    for (const { fact, validity } of read) {
      const said = JSON.stringify([fact.predicate, fact.kind === "relation" ? fact.object : fact.value]);
      if (facts.has(said)) continue;
      facts.add(said);
      const item = { ...scored, memory_category: fact.category, ...validity };
      if (fact.kind === "relation")
        diff.relations.push({ ...item, subject: note.speaker, verb: fact.predicate, object: fact.object } satisfies Relation);
      else diff.attributes.push({ ...item, entity: note.speaker, key: fact.predicate, value: fact.value } satisfies Attribute);
    }
  }
  diff.entities = [...entities.values()];
  return diff;
}

interface Reading {
  names: NamedThing[];
  evidence: string;
  read: { fact: Fact; validity: ReturnType<typeof validity> }[];
}

/**
 * What an annotation says of a turn's text, whatever the request knows: its named things, its evidence sentence and
 * its facts with their validity. Read once (compromise and the temporal parser are the stand-in's whole cost), so an
 * answer is a lookup and the stand-in stays near instant beside the Recall it serves in the same process.
 */
const readings = new WeakMap<Annotation, Map<string, Reading>>();

function readingOf(turn: AnnotatedTurn, note: Annotation): Reading {
  const byText = readings.get(note) ?? new Map<string, Reading>();
  readings.set(note, byText);
  const key = `${turn.sessionDate.toISOString()}\0${turn.text}`;
  const known = byText.get(key);
  if (known) return known;
  const names = namedThings(note.sentence).filter((n) => !sameName(n.name, note.speaker));
  const read = [factOf(note, names), ...kinFacts(note, names)].map((fact) => ({
    fact,
    validity: validity(note, turn.sessionDate, fact.aspect),
  }));
  const reading = { names, evidence: bestSentence(turn.text, note.sentence), read };
  byText.set(key, reading);
  return reading;
}

/** "Mel" and "Melanie Smith" are the speaker "Melanie" only when a word of one is the other's first word. */
function sameName(name: string, speaker: string): boolean {
  const first = (s: string) => s.toLowerCase().split(/\s+/)[0]!;
  return first(name) === first(speaker);
}

function categoryOfEntity(type: string): Entity["memory_category"] {
  return type === "person" || type === "pet" ? "identity" : "knowledge";
}

const STOPWORDS = new Set(
  "the and for with that this was were has have had her his their she him they them from about into when what which who will would been also just very really some".split(
    " ",
  ),
);

/** Word stems (their first five letters) a sentence and an annotation can share. */
function stems(text: string): Set<string> {
  const words = text.toLowerCase().match(/\p{L}[\p{L}'’]*/gu) ?? [];
  return new Set(words.filter((w) => w.length >= 3 && !STOPWORDS.has(w)).map((w) => w.slice(0, 5)));
}

/** The sentence of the turn sharing most word stems with the annotation, exactly as the turn has it (the first on a tie). */
export function bestSentence(text: string, annotation: string): string {
  const wanted = stems(annotation);
  let best = { quote: text.trim(), score: -1 };
  for (const sentence of splitSentences(text)) {
    const quote = text.slice(sentence.start, sentence.end);
    const score = [...stems(quote)].filter((s) => wanted.has(s)).length;
    if (quote.trim() !== "" && score > best.score) best = { quote, score };
  }
  return best.quote;
}

/** valid_from from the annotation's time phrase when it gives one, else the session's date; valid_to when the phrase ends it. */
export function validity(note: Annotation, sessionDate: Date, aspect: FactAspect): { valid_from: string | null; valid_to: string | null } {
  const phrase = findTemporalPhrases(note.sentence, sessionDate)[0];
  const given = phrase ? validityFor(phrase, aspect) : {};
  const to = given.valid_to ?? null;
  const from = given.valid_from ?? (to === null || Date.parse(to) > sessionDate.getTime() ? sessionDate.toISOString() : null);
  return { valid_from: from, valid_to: to };
}
