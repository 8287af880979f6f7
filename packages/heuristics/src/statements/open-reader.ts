// The open reader: first-person statements the personal grammar has no rule for ("I'm still
// volunteering at the homeless shelter", "we painted the kitchen", "I've been working on a
// new screenplay"), read by their shape with part-of-speech tags (compromise) rather than by
// their words. It keeps the speaker's own verb phrase as the value, so nothing is made up:
// what it adds over the raw turn is who did it, when, and whether it is ongoing, done or wanted.
// It refuses what its shape cannot settle: negation, modals, mental verbs, objects that point
// back into the conversation ("it", "that book you recommended") or name nothing particular.
// It reads the turn's one parse (parsed-turn.ts): tags, lemmas and noun phrases are not computed again.
import type { AttributeCandidate, MemoryCategory } from "@recall/contracts";
import { isAbstractWord } from "../lexicons/abstract-lexicon";
import type { PreparedClause } from "../text/clause-preparer";
import { readClauseTerms, type ClauseTerm } from "../text/clause-terms";
import type { ParsedTurn } from "../text/parsed-turn";
import { evidenceFor } from "../evidence-builder";
import type { Finding, TurnContext } from "../heuristic-types";
import { isPhaticWord } from "../lexicons/phatic-lexicon";
import { isQuestion } from "./presupposition-rules";
import type { Sentence } from "../text/sentence-splitter";
import { validityIn, type FactAspect } from "../time/temporal-resolver";

/**
 * Below the statement and personal grammars (0.85 for the speaker): the shape says who did
 * what, but not whether it matters, and it misses what the turn implies. `pnpm bench:gate`
 * shows what it buys: about nine in ten cited turns finished with its facts keep a fact the
 * dataset's annotators also noted. An operator who wants fewer, surer facts sets
 * RECALL_HEURISTIC_CONFIDENCE above this and these clauses go to a model.
 */
export const OPEN_READING_CONFIDENCE = 0.78;

type OpenKind = "doing" | "did" | "does" | "goal" | "started";

const KINDS: Record<OpenKind, { aspect: FactAspect; category: MemoryCategory }> = {
  doing: { aspect: "state", category: "context" },
  did: { aspect: "past_state", category: "context" },
  does: { aspect: "state", category: "knowledge" },
  goal: { aspect: "future", category: "knowledge" },
  started: { aspect: "change", category: "knowledge" },
};

/** The subject, after at most a short lead-in ("By the way, I …", "Last Friday, we …") that is not itself a clause. */
const SUBJECT =
  /^(?:(?![^,]*\b(?:it|this|that|he|she|they|you|is|was|are|were)\b)[^,]{1,30},\s+)?(?:I|we|me and my \p{L}+|my \p{L}+ and I)\s+/iu;
const ADVERBS =
  /^(?:just|really|also|finally|recently|still|actually|even|already|always|usually|often|sometimes|mostly|totally|definitely|lately|currently|now|again|both|all)$/i;
const AUXILIARIES = /^(?:am|are|was|were|have|has|had|been|do|did|will)$/i;
/** Hypothetical, negated or ambiguous: the clause does not say it happened. */
const UNSURE = /^(?:can|could|would|should|might|must|may|not|never|don't|didn't|won't|can't|haven't|hasn't|wasn't|cannot)$/i;
/** Verbs of thinking, feeling and talking: what follows is an opinion or a reply, not a fact. */
const MENTAL = new Set(
  `think feel know guess hope wish agree mean appreciate see hear bet wonder believe understand remember forget
   love like enjoy adore hate prefer need miss imagine realize realise notice say tell ask thank admire cherish
   seem look sound mind care worry relate promise owe deserve recommend suggest`.split(/\s+/),
);
const WANTS = /^(?:want|wanted|hope|hoped|hoping|plan|planned|dream|dreamed|dreaming|aim|aiming|intend|would like|'d love)$/i;
const STARTS = /^(?:start|started|starting|begin|began|begun)$/i;
/** The object is a clause or a purpose, not a thing. */
const CLAUSE_OPENER = /^(?:so|to|how|what|why|when|where|if|whether|because|like|as)\b/i;
/** The object points into the conversation: what it means depends on what was said before. */
const POINTING = /\b(?:you|your|yours|it|this|that|those|these|there|they|them|he|him|she|her|something|anything|everything|everyone's)\b/i;
/** Verbs too light to say what was done ("got a surge of energy", "had to"), and "going to", "gonna": the personal grammar's plans. */
const LIGHT =
  /^(?:to|get|got|gotten|getting|have|has|had|having|do|does|did|doing|going|gonna|wanna|gotta|go|goes|went|be|being|need|needs|try|tried|trying|let|keep|kept)$/i;

type Term = ClauseTerm;

export function detectOpenStatement(clause: Sentence, context: TurnContext, prepared: PreparedClause): Finding | undefined {
  if (!context.fromUser || context.speaker === undefined || isQuestion(clause.text)) return undefined;
  const lead = prepared.body.replace(/^(?:(?:yeah|yes|yep|and|but|plus|lately|recently|today|anyway),?\s+)+/i, "");
  const clauseTerms = readClauseTerms(context.parsed, clause, lead);
  const body = clauseTerms.text;
  const subject = SUBJECT.exec(body);
  const restAt = subject ? subject[0].length : 0;
  const rest = body.slice(restAt);
  // What follows the subject (or the whole clause when it drops the subject).
  const terms = clauseTerms.terms.filter((t) => t.at >= restAt);
  if (!subject && !opensWithDroppedSubject(rest, terms)) return undefined;
  const reading = readPredicate(context.parsed, terms, rest, prepared.body);
  if (reading === undefined) return undefined;
  const attribute: AttributeCandidate = {
    entity: context.speaker.name,
    entity_type: "person",
    key: reading.kind,
    value: reading.value,
    memory_category: KINDS[reading.kind].category,
    evidence: evidenceFor(context.text, clause.start, clause.end),
    confidence: OPEN_READING_CONFIDENCE,
    significance: "low",
    ...validityIn(prepared.phrases, KINDS[reading.kind].aspect),
  };
  return { diff: { attributes: [attribute] }, confidence: OPEN_READING_CONFIDENCE, rule: `open ${reading.kind}`, complete: true };
}

const FINITE = /^(?:is|are|was|were|am|has|have|had|does|do|did|can|could|will|would|should|must|might|may|'s|'re)$/i;

/** "Took the kids to the zoo", "Been working on a screenplay": a past tense or "been" opening the clause. */
function opensWithDroppedSubject(body: string, terms: Term[]): boolean {
  const first = terms[0];
  if (!/^\p{Lu}/u.test(body) || first === undefined) return false;
  if (/^been$/i.test(first.text)) return true;
  // "Researching adoption agencies": a gerund opening a clause with no finite verb of its own ("Taking care of it is vital" has one).
  if (first.tags.includes("Gerund")) return !terms.slice(1).some((t) => FINITE.test(t.normal));
  return first.tags.includes("PastTense") && !first.tags.includes("Copula") && !first.tags.includes("Auxiliary");
}

/** `rest` is read with contractions spelled out; the value is cut from `original`, the speaker's own spelling. */
function readPredicate(parsed: ParsedTurn, terms: Term[], rest: string, original: string): { kind: OpenKind; value: string } | undefined {
  let i = 0;
  let progressive = false;
  let perfect = false;
  let be = false;
  while (i < terms.length) {
    const t = terms[i] as Term;
    if (UNSURE.test(t.normal) || t.tags.includes("Negative") || t.tags.includes("Modal")) return undefined;
    if (!ADVERBS.test(t.normal) && !AUXILIARIES.test(t.normal)) break;
    if (/^(?:am|are|been)$/i.test(t.normal)) progressive = true;
    if (AUXILIARIES.test(t.normal)) be = /^(?:am|are|was|were|been)$/i.test(t.normal);
    if (/^(?:have|has|had)$/i.test(t.normal)) perfect = true;
    i += 1;
  }
  const verb = terms[i];
  if (verb === undefined || verb.tags.includes("Copula") || LIGHT.test(verb.normal)) return undefined;
  // The tagger may take "volunteering" after "am still" for a noun; after "be" an "-ing" word is the verb.
  const gerund = verb.tags.includes("Gerund") || (be && /^[a-z]{3,}ing$/.test(verb.normal));
  if (!verb.tags.includes("Verb") && !gerund) return undefined;
  // After a form of "be", only "-ing" is an action: "I'm stoked", "I was inspired by …" describe a state of mind.
  if (be && !gerund) return undefined;
  const lemma = lemmaOf(parsed, verb);
  const after = terms.slice(i + 1);
  // The speaker's own words from the verb on, punctuation and all.
  const from = original.indexOf(verb.text);
  const value = (from >= 0 ? original.slice(from) : rest.slice(Math.max(0, rest.indexOf(verb.text))))
    .replace(/[\s,;:.!?-]+$/u, "")
    // A time phrase taken out of the clause may leave a word of it behind ("volunteering at the shelter every").
    .replace(/\s+(?:every|each|on|in|at|by|since|during|from|last|next|this)$/i, "");
  if (WANTS.test(verb.normal) && after[0]?.normal === "to") {
    const next = after[1];
    return next && !MENTAL.has(next.normal) && !LIGHT.test(next.normal) && namesThing(parsed, after.slice(2))
      ? { kind: "goal", value }
      : undefined;
  }
  if (MENTAL.has(lemma) || MENTAL.has(verb.normal.replace(/(?:ed|d|ing)$/, "")) || !namesThing(parsed, after)) return undefined;
  if (STARTS.test(verb.normal)) return { kind: "started", value };
  // A clause opening on a gerund ("Volunteering at the shelter") is ongoing, as "I'm volunteering" is.
  if (i === 0 && /^\p{Lu}/u.test(verb.text) && verb.tags.includes("Gerund")) progressive = true;
  const kind: OpenKind = progressive && gerund ? "doing" : perfect || verb.tags.includes("PastTense") ? "did" : "does";
  return { kind, value };
}

/**
 * The words after the verb name something particular: their first noun phrase is headed by
 * a concrete noun or a name, and nothing in them points back into the conversation.
 */
function namesThing(parsed: ParsedTurn, after: Term[]): boolean {
  const phrase = after.map((t) => t.text).join(" ");
  if (after.length === 0 || after.length > 12 || CLAUSE_OPENER.test(phrase) || POINTING.test(phrase)) return false;
  const first = after[0]!.start;
  const nouns = parsed.nounsIn(first, after[after.length - 1]!.end).filter((n) => n.start >= first);
  const word = (n: { text: string; root?: string }) =>
    (n.root ?? n.text)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s'-]+/gu, "")
      .split(/\s+/)
      .pop() ?? "";
  const head = nouns.map(word).find((w) => w.length > 0);
  if (head === undefined || isAbstractWord(head) || isPhaticWord(head) || isAbstractWord(head.replace(/s$/, ""))) return false;
  return !/^(?:time|lot|lots|bit|way|day|week|thing|things|stuff|moment|moments)$/.test(head);
}

/** The verb's dictionary form, from the verb phrase the turn's parse found it in. */
function lemmaOf(parsed: ParsedTurn, verb: Term): string {
  const infinitive = parsed.lemmaAt(verb.start);
  return (infinitive?.split(/\s+/).find((w) => !AUXILIARIES.test(w)) ?? verb.normal).toLowerCase();
}
