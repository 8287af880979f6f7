// The fact an annotation sentence states about its speaker, by the sentence's shape, with the
// conversation skill's predicates (skills/extraction/conversation/SKILL.md): "Jon works at Acme"
// is works_at, "Gina is planning to open a store" a goal, "Melanie painted a sunrise" did. A
// relation when its object is a named thing of the sentence, else an attribute whose value is the
// phrase. A sentence of no known shape is kept whole as `noted`, a free predicate: the skill lists
// key predicates for guidance and Recall's validation takes any snake_case key.
import nlp from "compromise";
import type { FactAspect } from "@recall/heuristics";
import type { Annotation } from "./standin-data";
import type { NamedThing } from "./standin-names";

type Category = "identity" | "knowledge" | "context";

export type Fact = { predicate: string; category: Category; aspect: FactAspect } & (
  { kind: "relation"; object: string } | { kind: "attribute"; value: string }
);

interface Rule {
  shape: RegExp;
  predicate: string;
  /** The phrase names the object: a relation when a named thing of the sentence is in it. */
  names?: boolean;
}

const PLAN = String.raw`(?:is planning|plans|planned|wants|wanted|hopes|hoped|intends|is going|will|would like)`;
const PET = String.raw`(?:pets?|dogs?|pupp(?:y|ies)|pups?|cats?|kittens?|horses?|birds?|parrots?|hamsters?|rabbits?|bunn(?:y|ies)|turtles?|fish|snakes?)`;

const RULES: Rule[] = [
  { shape: /^(?:is |was )?(?:working|works?|worked|employed) (?:at|for) (.+)/, predicate: "works_at", names: true },
  { shape: /^(?:lives?|lived|is living|resides?) in (.+)/, predicate: "lives_in", names: true },
  { shape: /^(?:moved|relocated) to (.+)/, predicate: "lives_in", names: true },
  { shape: /^(?:is |was )?(?:a )?member of (.+)/, predicate: "member_of", names: true },
  { shape: /^joined (.+)/, predicate: "member_of", names: true },
  { shape: /^(?:studies|studied|is studying) at (.+)/, predicate: "studies_at", names: true },
  { shape: new RegExp(String.raw`^${PLAN} to attend (.+)`), predicate: "plans_to_attend", names: true },
  { shape: new RegExp(String.raw`^${PLAN} to (?:visit|travel to|go to) (.+)`), predicate: "plans_to_visit", names: true },
  {
    shape:
      /^(?:(?:is planning|plans|planned|wants|wanted|hopes|hoped|intends|aims|would like|is going|is determined) to|(?:is looking forward|is considering|is thinking|dreams)(?: to| of| about)?|will) (.+)/,
    predicate: "goal",
  },
  { shape: /^(?:attended|attends|is attending) (.+)/, predicate: "attended", names: true },
  { shape: /^(?:visited|has been to|has visited) (.+)/, predicate: "visited", names: true },
  { shape: /^(?:went|goes|traveled|travelled|took a trip) to (.+)/, predicate: "went", names: true },
  { shape: /^won (.+)/, predicate: "won", names: true },
  { shape: /^(?:hosts|hosted|is hosting) (.+)/, predicate: "hosts", names: true },
  { shape: new RegExp(String.raw`^(?:has|had|owns|adopted|got|gets) (.*\b${PET}\b.*)`), predicate: "owns", names: true },
  {
    shape: /^(?:loves|likes|enjoys|adores|is passionate about|is a (?:big )?fan of|is into|is interested in|finds joy in) (.+)/,
    predicate: "likes",
  },
  { shape: /^(?:dislikes|hates|does not like|doesn't like|is not a fan of) (.+)/, predicate: "dislikes" },
  { shape: /^(?:is reading|reads|is currently reading) (.+)/, predicate: "reading", names: true },
  { shape: /^(?:started|began|launched|opened|founded) (.+)/, predicate: "started", names: true },
  { shape: /^(?:does|practices|plays) (.+)/, predicate: "does" },
  { shape: /^is (\w+ing\b.+)/, predicate: "doing" },
];

const CATEGORY: Record<string, Category> = {
  works_at: "identity",
  lives_in: "identity",
  member_of: "identity",
  studies_at: "identity",
  related_to: "identity",
  knows: "identity",
  likes: "knowledge",
  dislikes: "knowledge",
  owns: "knowledge",
  reading: "knowledge",
  does: "knowledge",
  hosts: "knowledge",
};

const ASPECT: Record<string, FactAspect> = {
  goal: "future",
  plans_to_attend: "future",
  plans_to_visit: "future",
  did: "change",
  attended: "change",
  visited: "change",
  went: "change",
  won: "change",
  started: "change",
  lives_in: "change",
  owns: "change",
};

const ADVERBS = /^(?:(?:also|currently|now|recently|still|just|really|finally|already|often|usually|sometimes)\s+)+/;

/** Shapes whose subject is something of the speaker's: "Gina's favorite style is contemporary", "Jon's goal is to …". */
const POSSESSED: { shape: RegExp; predicate: string; value: (m: RegExpExecArray) => string }[] = [
  { shape: /^favou?rite (.+?) (?:is|are|was|were) (.+)/, predicate: "likes", value: (m) => `${clause(m[2]!)} (favorite ${m[1]!})` },
  { shape: /^(?:goal|dream|plan|aim|hope) (?:is|was) (?:to )?(.+)/, predicate: "goal", value: (m) => clause(m[1]!) },
];

export function factOf(note: Annotation, names: NamedThing[]): Fact {
  const rest = predicatePart(note);
  if (rest === undefined) return possessed(note) ?? fact("noted", { kind: "attribute", value: trimmed(note.sentence) });
  for (const rule of RULES) {
    const phrase = rule.shape.exec(rest)?.[1];
    if (phrase === undefined) continue;
    const named = rule.names ? names.find((n) => headedBy(phrase, n.name)) : undefined;
    return fact(rule.predicate, named ? { kind: "relation", object: named.name } : { kind: "attribute", value: clause(phrase) });
  }
  return fact(pastTense(rest) ? "did" : "noted", { kind: "attribute", value: trimmed(rest) });
}

/** Whether the phrase is about the named thing itself ("the Chicago Marathon last week"), not something it qualifies ("an LGBTQ support group"). */
function headedBy(phrase: string, name: string): boolean {
  const rest = phrase.replace(/^(?:the|a|an|her|his|their)\s+/i, "");
  if (!rest.toLowerCase().startsWith(name.toLowerCase())) return false;
  return /^(?:$|[,.;!?]|\s+(?:in|on|at|with|for|and|to|last|this|next|recently|yesterday|since|from|during|because|which|who|where|when|after|before|once|twice|again|as|by|every|several|many|\d+)\b)/.test(
    rest.slice(name.length),
  );
}

function fact(predicate: string, body: { kind: "relation"; object: string } | { kind: "attribute"; value: string }): Fact {
  return { predicate, category: CATEGORY[predicate] ?? "context", aspect: ASPECT[predicate] ?? "state", ...body };
}

/** A fact about something of the speaker's (POSSESSED), read as one about the speaker. */
function possessed(note: Annotation): Fact | undefined {
  const first = note.speaker.split(/\s+/)[0]!;
  const rest = new RegExp(String.raw`^${escape(first)}['’]s\s+(.+)`, "u").exec(note.sentence)?.[1];
  if (rest === undefined) return undefined;
  for (const { shape, predicate, value } of POSSESSED) {
    const match = shape.exec(rest);
    if (match) return fact(predicate, { kind: "attribute", value: value(match) });
  }
  return undefined;
}

/** The sentence after its subject when the subject is the speaker ("Melanie painted …" → "painted …"); undefined otherwise. */
function predicatePart(note: Annotation): string | undefined {
  const first = note.speaker.split(/\s+/)[0]!;
  const subject = new RegExp(String.raw`^${escape(first)}(?:\s+\p{Lu}\p{L}*)?\s+(?!['’]s\b)`, "u");
  if (!subject.test(note.sentence)) return undefined;
  return note.sentence.replace(subject, "").replace(ADVERBS, "");
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function pastTense(phrase: string): boolean {
  const first = (nlp(phrase).json() as { terms: { tags: string[] }[] }[])[0]?.terms[0];
  return first?.tags.includes("PastTense") ?? false;
}

function trimmed(text: string): string {
  return text.trim().replace(/[.!]+$/, "");
}

/** The phrase up to where the sentence goes on to something else ("… recently and found the stories inspiring"). */
function clause(phrase: string): string {
  const cut = phrase.search(
    /[,;]\s| (?:which|because|since|where|while|but) | and (?=(?:it|she|he|they|her|his|their|\w+ed|found|felt|made|took|got|gave|saw|is|has|had|wants|plans|loves|enjoys|finds)\b)/,
  );
  return trimmed(cut > 0 ? phrase.slice(0, cut) : phrase);
}

const FAMILY =
  "mother|mom|mum|father|dad|sister|brother|son|daughter|husband|wife|partner|spouse|kids?|child|children|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew|fianc[ée]e?|boyfriend|girlfriend";
const ACQUAINTED = "friends?|colleagues?|co-?workers?|neighbou?rs?|mentors?|boss|teachers?|coach|roommates?|classmates?|buddy|pal";

/** The people and pets a sentence names with a kin, friend or pet word before them: "her friend Tom", "a dog named Oliver". */
export function kinFacts(note: Annotation, names: NamedThing[]): Fact[] {
  const facts: Fact[] = [];
  for (const thing of names) {
    if (thing.type !== "person" && thing.type !== "pet") continue;
    const before = (words: string) =>
      new RegExp(String.raw`\b(?:${words}),?\s+(?:named |called )?${escape(thing.name)}\b`, "i").test(note.sentence);
    const predicate =
      thing.type === "pet" ? (before(PET) ? "owns" : undefined) : before(FAMILY) ? "related_to" : before(ACQUAINTED) ? "knows" : undefined;
    if (predicate) facts.push(fact(predicate, { kind: "relation", object: thing.name }));
  }
  return facts;
}
