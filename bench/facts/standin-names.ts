// The named things of an annotation sentence, typed with the conversation skill's entity types:
// people, places and organisations as compromise tags them; a name right after a pet word is a pet,
// a name ending in an event word is an event; any other capitalised run is a topic. Nothing here
// knows a particular conversation or person.
import nlp from "compromise";

export interface NamedThing {
  name: string;
  type: "person" | "location" | "organization" | "event" | "pet" | "topic";
}

interface Term {
  text: string;
  post: string;
  tags: string[];
  normal: string;
}

const EVENT_WORDS = new Set(
  "marathon festival parade conference con convention summit fair expo concert tournament championship cup race show gala awards ceremony party rally camp retreat workshop week day night olympics".split(
    " ",
  ),
);
const PET_WORDS = new Set(
  "pet pets dog dogs puppy pup cat cats kitten kitty horse bird parrot hamster rabbit bunny turtle fish snake guinea pig".split(" "),
);
/** Capitalised but not a name: dates, pronouns, and the words a sentence starts with. */
const NOT_NAMES = ["Date", "Month", "WeekDay", "Pronoun", "Holiday"];
const NAME_TAGS = ["ProperNoun", "Person", "Place", "Organization", "Acronym"];

export function namedThings(sentence: string): NamedThing[] {
  const found = new Map<string, NamedThing>();
  for (const terms of nlp(sentence)
    .json()
    .map((s: { terms: Term[] }) => s.terms)) {
    for (const run of capitalisedRuns(terms)) {
      const thing = { name: run.terms.map((t) => t.text).join(" "), type: typeOf(run.terms, terms.slice(Math.max(0, run.at - 3), run.at)) };
      if (!found.has(thing.name.toLowerCase())) found.set(thing.name.toLowerCase(), thing);
    }
  }
  return [...found.values()];
}

/** Runs of capitalised terms, broken by punctuation and possessives ("Caroline's dog" ends at Caroline). */
function capitalisedRuns(terms: Term[]): { at: number; terms: Term[] }[] {
  const runs: { at: number; terms: Term[] }[] = [];
  let current: { at: number; terms: Term[] } | undefined;
  for (const [i, term] of terms.entries()) {
    const text = term.text.replace(/['’]s$/, "");
    const named =
      /^\p{Lu}/u.test(text) && !term.tags.some((t) => NOT_NAMES.includes(t)) && (i > 0 || term.tags.some((t) => NAME_TAGS.includes(t)));
    if (!named) {
      current = undefined;
      continue;
    }
    if (!current) runs.push((current = { at: i, terms: [] }));
    current.terms.push({ ...term, text });
    if (text !== term.text || /[^\s]/.test(term.post)) current = undefined;
  }
  return runs;
}

function typeOf(run: Term[], before: Term[]): NamedThing["type"] {
  const tagged = (tag: string) => run.some((t) => t.tags.includes(tag));
  if (EVENT_WORDS.has(run[run.length - 1]!.normal)) return "event";
  if (before.some((t) => PET_WORDS.has(t.normal))) return "pet";
  if (tagged("Person")) return "person";
  if (tagged("Place")) return "location";
  if (tagged("Organization")) return "organization";
  return "topic";
}
