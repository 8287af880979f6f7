// Grammar of the everyday first-person statements of casual conversation: tastes, pets,
// family, outings, plans, pastimes, groups joined. Each rule names the slot reader that must
// accept its object; a match whose object the reader refuses is not a reading.
import { NAME } from "../statements/statement-grammar";
import type { FactAspect } from "../time/temporal-resolver";

export type PersonalKind =
  | "likes"
  | "dislikes"
  | "pet"
  | "kin"
  | "outing"
  | "activity_outing"
  | "plan"
  | "plan_attend"
  | "hosts"
  | "practice_since"
  | "started"
  | "joined"
  | "signed_up"
  | "researching"
  | "plays"
  | "learning"
  | "reading"
  | "won"
  | "trying"
  | "watched"
  | "job"
  | "moved"
  | "had_event"
  | "goal"
  | "involved";

/** Which reader checks the object: see phrase-reader and kin-reader. */
export type Slot =
  | "thing"
  | "title"
  | "venue"
  | "occasion"
  | "event"
  | "own_event"
  | "activity"
  | "verb_phrase"
  | "plan_noun"
  | "group"
  | "pet"
  | "kin"
  | "life_change";

export interface PersonalRule {
  kind: PersonalKind;
  slot: Slot;
  pattern: RegExp;
  aspect: FactAspect;
  /** The statement is a fact only with a time phrase of this relation ("I've been painting since 2016"). */
  needsTime?: "since" | "any";
  /** Also read about the person addressed ("You went to …"): concrete happenings, not tastes or plans, which in the second person are mostly guesses or praise. */
  secondPerson: boolean;
  /** Reads a fact from the clause's opening and leaves the rest to a model ("My sister Pam just had a baby"). */
  partial?: boolean;
}

const ADV = String.raw`(?:(?:just|really|also|finally|recently|totally|absolutely|still|actually|even|definitely|truly|honestly|seriously|already|always|kinda|usually|mostly|genuinely|especially|so|now|lately|currently)\s+)*`;
const X = String.raw`(?<x>.+)`;
const I_AM = String.raw`I(?:'m| am)\s+${ADV}`;
const I_HAVE = String.raw`I(?:'ve| have)\s+${ADV}`;
const I_DID = String.raw`I\s+${ADV}`;
const I_BEEN = String.raw`(?:I(?:'m| am)|I(?:'ve| have) been)\s+${ADV}`;
const COUNT = String.raw`(?<count>a|an|one|two|three|four|five|six|\d+)`;
const FEW_ADJ = String.raw`(?:(?:new|little|young|younger|old|older|big|baby|sweet|cute|wonderful|amazing|beautiful|lovely|adorable|rescue|grown|grown-up|adult)\s+)?`;
const JOB_WORDS = String.raw`(?:(?:new|first|dream|part-time|full-time|temp|temporary|summer|second|old)\s+)?(?:job|position|gig)\b`;
const NAMED = String.raw`(?:,?\s+(?:named|called)\s+(?<name>${NAME}))?`;

/** "we" and "my family and I": what the speaker's household did is the speaker's too (a pet, a move). */
const WE = String.raw`(?:I|[Ww]e|[Mm]y \p{L}+ and I|[Mm]e and my \p{L}+)\s+${ADV}`;

const SECOND_PERSON = new Set<PersonalKind>(["pet", "kin", "outing", "activity_outing", "started", "joined", "signed_up"]);

function rule(
  kind: PersonalKind,
  slot: Slot,
  source: string,
  aspect: FactAspect = "state",
  needsTime?: PersonalRule["needsTime"],
  partial?: boolean,
): PersonalRule {
  const secondPerson = SECOND_PERSON.has(kind);
  return { kind, slot, pattern: new RegExp(`^${source}$`, "u"), aspect, needsTime, secondPerson, ...(partial ? { partial } : {}) };
}

/** Tried in order on a clause without discourse markers, time phrases and final punctuation. */
export const PERSONAL_RULES: PersonalRule[] = [
  rule("likes", "thing", String.raw`I\s+${ADV}(?:love|like|enjoy|adore)\s+${X}`),
  rule("likes", "thing", String.raw`${I_HAVE}(?:loved|liked|enjoyed|been into|been a fan of)\s+${X}`),
  rule("likes", "thing", String.raw`${I_AM}(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?fan of\s+${X}`),
  rule("likes", "thing", String.raw`${I_AM}(?:into|passionate about|obsessed with|interested in|keen on|crazy about)\s+${X}`),
  rule(
    "likes",
    "thing",
    String.raw`I(?:'ve| have)?\s+${ADV}(?:had|got|have) a (?:real |big |deep |huge |soft spot and )?(?:love|passion|soft spot) for\s+${X}`,
  ),
  rule(
    "likes",
    "thing",
    String.raw`[Mm]y (?:absolute |all-time |personal )?(?:favou?rite|fave)(?:\s+[\p{L}-]+){0,2} (?:is|has to be|would be)\s+${X}`,
  ),
  rule("dislikes", "thing", String.raw`I\s+${ADV}(?:hate|dislike|can't stand|cannot stand|detest)\s+${X}`),
  rule("dislikes", "thing", String.raw`I (?:don't|do not)\s+${ADV}(?:like|enjoy)\s+${X}`),
  rule(
    "pet",
    "pet",
    String.raw`I(?:'ve| have)?\s+${ADV}(?:have|got|have got|own|adopted)\s+${COUNT}\s+${FEW_ADJ}(?<species>[\p{L}-]+)${NAMED}`,
  ),
  rule("pet", "pet", String.raw`${WE}(?:got|adopted|brought home|rescued)\s+${COUNT}\s+${FEW_ADJ}(?<species>[\p{L}-]+)${NAMED}`, "change"),
  rule("pet", "pet", String.raw`[Mm]y\s+${FEW_ADJ}(?<species>[\p{L}-]+)(?:'s name is|\s+is (?:named|called))\s+(?<name>${NAME})`),
  rule("pet", "pet", String.raw`(?:[Tt]his is|[Mm]eet|[Hh]ere's|[Hh]ere is) my\s+${FEW_ADJ}(?<species>[\p{L}-]+),?\s+(?<name>${NAME})`),
  rule("pet", "pet", String.raw`(?<name>${NAME}) is my\s+${FEW_ADJ}(?<species>[\p{L}-]+)`),
  rule("kin", "kin", String.raw`I(?:'ve| have)?\s+${ADV}(?:have|got|have got)\s+${COUNT}\s+${FEW_ADJ}(?<kin>[\p{L}-]+)${NAMED}`),
  rule("kin", "kin", String.raw`[Mm]y\s+${FEW_ADJ}(?<kin>[\p{L}-]+)(?:'s name is|\s+is (?:named|called))\s+(?<name>${NAME})`),
  rule("kin", "kin", String.raw`(?:[Tt]his is|[Mm]eet) my\s+${FEW_ADJ}(?<kin>[\p{L}-]+),?\s+(?<name>${NAME})`),
  rule("kin", "kin", String.raw`(?<name>${NAME}) is my\s+${FEW_ADJ}(?<kin>[\p{L}-]+)`),
  // "My sister Pam just had a baby": who Pam is, read; what she did, left to a model.
  rule("kin", "kin", String.raw`[Mm]y\s+${FEW_ADJ}(?<kin>[\p{L}-]+),?\s+(?<name>${NAME}),?\s+\p{Ll}.*`, "state", undefined, true),
  rule(
    "job",
    "life_change",
    String.raw`I(?:'ve| have)?\s+${ADV}(?<x>(?:got|landed|found|started|accepted|took|began|quit|left|lost) (?:a|an|my|the) ${JOB_WORDS}.*)`,
    "change",
  ),
  rule("job", "life_change", String.raw`I(?:'ve| have)?\s+${ADV}(?<x>(?:got|was|been) promoted.*)`, "change"),
  rule("moved", "life_change", String.raw`${WE}(?<x>(?:moved|relocated) (?:to|into|back to|in to|out of)\s+.+)`, "change"),
  rule("moved", "life_change", String.raw`${I_AM}(?<x>(?:moving|relocating) (?:to|into|back to)\s+.+)`, "future", "any"),
  rule("outing", "venue", String.raw`${I_DID}(?:went|headed|got|made it|traveled|travelled) (?:over |out |back )?to\s+${X}`, "past_state"),
  rule("outing", "venue", String.raw`${I_DID}(?:attended|visited|toured)\s+${X}`, "past_state"),
  rule("outing", "venue", String.raw`${I_DID}(?:got back|came back|returned) from\s+${X}`, "past_state"),
  rule("outing", "event", String.raw`I\s+${ADV}(?:was at|took part in|participated in|competed in|went on|took)\s+${X}`, "past_state"),
  // "We had a blast at the street fair", "I had a great time on our camping trip": where one was, and that it went well.
  rule(
    "outing",
    "occasion",
    String.raw`${WE}had (?:a|an|such a|the|the best|so much|lots of)\s+(?:[\p{L}-]+\s+){0,2}(?:time|blast|day|night|weekend|fun|experience)\s+(?:at|on|in|during)\s+${X}`,
    "past_state",
  ),
  // "I had an interview for a design internship", "we had a picnic in the park": an event of one's own.
  rule("had_event", "event", String.raw`${WE}had\s+${X}`, "past_state"),
  rule("activity_outing", "activity", String.raw`${I_DID}went\s+${X}`, "past_state"),
  rule("won", "own_event", String.raw`${I_DID}won\s+${X}`, "past_state"),
  rule("plan_attend", "venue", String.raw`${I_AM}(?:going|heading|off) to\s+${X}`, "future"),
  rule("plan_attend", "event", String.raw`${I_HAVE}got\s+${X}`, "future", "any"),
  rule("plan", "verb_phrase", String.raw`${I_AM}(?:going to|gonna|planning to|about to|off to)\s+${X}`, "future"),
  // A hope is a plan only once it has a date ("hoping to attend a conference next month").
  rule("plan", "verb_phrase", String.raw`${I_AM}hoping to\s+${X}`, "future", "any"),
  rule("plan", "verb_phrase", String.raw`I\s+${ADV}plan to\s+${X}`, "future"),
  rule(
    "goal",
    "verb_phrase",
    String.raw`[Mm]y (?:main |big |biggest |ultimate |long-term |real )?(?:goal|dream|aim|ambition) (?:is|has always been|is still) to\s+${X}`,
    "future",
  ),
  rule("plan", "plan_noun", String.raw`${I_AM}planning\s+${X}`, "future"),
  rule("plan", "activity", String.raw`${I_AM}(?:planning on|thinking of|thinking about)\s+${X}`, "future"),
  rule(
    "hosts",
    "event",
    String.raw`${I_AM}(?:having|hosting|throwing|holding|organi[sz]ing|putting together|setting up)\s+${X}`,
    "future",
    "any",
  ),
  rule("practice_since", "activity", String.raw`${I_HAVE}been\s+${X}`, "state", "since"),
  rule("started", "activity", String.raw`I(?:'ve| have)?\s+${ADV}(?:started|began)\s+${X}`, "change"),
  rule("started", "thing", String.raw`${I_DID}(?:took up|picked up|got into)\s+${X}`, "change"),
  rule("joined", "group", String.raw`I(?:'ve| have)?\s+${ADV}(?:joined|became a member of)\s+${X}`, "change"),
  rule("signed_up", "venue", String.raw`I(?:'ve| have)?\s+${ADV}(?:signed up|registered|enrolled)\s+(?:for|in)\s+${X}`, "change"),
  rule("likes", "thing", String.raw`${I_BEEN}(?:enjoying|loving)\s+${X}`),
  rule("involved", "thing", String.raw`${I_BEEN}(?:involved|active) (?:in|with)\s+${X}`),
  rule("practice_since", "activity", String.raw`${I_BEEN}doing\s+${X}`),
  rule("researching", "thing", String.raw`${I_BEEN}(?:researching|reading up on|looking into)\s+${X}`),
  rule("reading", "title", String.raw`${I_BEEN}(?:reading|re-reading|rereading)\s+${X}`),
  rule("watched", "title", String.raw`I\s+${ADV}(?:watched|saw|read|finished reading|finished watching)\s+${X}`, "past_state"),
  rule("trying", "thing", String.raw`${I_AM}(?:trying out|trying)\s+${X}`),
  rule("plays", "thing", String.raw`I\s+${ADV}play\s+(?:the\s+)?${X}`),
  rule("learning", "thing", String.raw`${I_BEEN}(?:learning|studying)\s+${X}`),
];
