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
  pre: string;
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
  for (const { terms } of nlp(sentence).json() as { terms: Term[] }[]) {
    for (const run of capitalisedRuns(terms)) {
      if (run.terms.every((t) => t.tags.includes("Demonym"))) continue;
      const thing = {
        name: nameOf(run),
        type: run.quoted ? ("topic" as const) : typeOf(run.terms, terms.slice(Math.max(0, run.at - 3), run.at)),
      };
      if (!found.has(thing.name.toLowerCase())) found.set(thing.name.toLowerCase(), thing);
    }
  }
  return [...found.values()];
}

interface Run {
  at: number;
  terms: Term[];
  /** A quoted title ("Becoming Nicole"): a topic whatever its words are tagged. */
  quoted: boolean;
}

/**
 * Runs of capitalised terms, broken by punctuation and possessives ("Caroline's dog" ends at Caroline), kept whole
 * across "of" ("Game of Thrones"), hyphens ("Spider-Man") and initials ("George R. R. Martin"); a quoted span is one run.
 */
function capitalisedRuns(terms: Term[]): Run[] {
  const runs: Run[] = [];
  let current: Run | undefined;
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!;
    if (/["“]/.test(term.pre)) {
      const end = terms.findIndex((t, j) => j >= i && /["”]/.test(t.post));
      if (end >= i && end - i < 8) {
        runs.push({
          at: i,
          terms: terms.slice(i, end + 1).map((t, j, all) => ({ ...t, post: j < all.length - 1 ? t.post : "" })),
          quoted: true,
        });
        [current, i] = [undefined, end];
        continue;
      }
    }
    const text = term.text.replace(/['’]s$/, "");
    if (current && /^(?:of|the)$/.test(term.normal) && isName(terms, i + (terms[i + 1]?.normal === "the" ? 2 : 1))) {
      current.terms.push(term);
      continue;
    }
    if (!isName(terms, i)) {
      current = undefined;
      continue;
    }
    if (!current) runs.push((current = { at: i, terms: [], quoted: false }));
    current.terms.push({ ...term, text });
    const joined = term.post === "-" || (term.post.trim() === "." && /^\p{Lu}$/u.test(text));
    if (text !== term.text || (/[^\s]/.test(term.post) && !joined)) current = undefined;
  }
  return runs;
}

function isName(terms: Term[], i: number): boolean {
  const term = terms[i];
  if (!term || !/^\p{Lu}/u.test(term.text) || term.tags.some((t) => NOT_NAMES.includes(t))) return false;
  return i > 0 || term.tags.some((t) => NAME_TAGS.includes(t));
}

/** The run's words as the sentence spells them: "Spider-Man", "George R. R. Martin", "Game of Thrones". */
function nameOf(run: Run): string {
  return run.terms
    .map((t, j) => t.text + (j === run.terms.length - 1 ? "" : t.post === "-" ? "-" : t.post.trim() === "." ? ". " : " "))
    .join("")
    .trim();
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
