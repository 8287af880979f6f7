// First-person statements of casual conversation ("I love hiking", "I have a dog named Max",
// "I went to a support group yesterday"), read with the personal grammar. A question, a
// clause whose object no reader accepts, or a fact that needs a date the clause lacks is
// not read here, so the clause stays for a model.
import { prepareClause, type PreparedClause } from "../text/clause-preparer";
import type { Finding, TurnContext } from "../heuristic-types";
import { readCompanions, readKin, readPet } from "./kin-reader";
import { PERSONAL_RULES, type PersonalRule, type Slot } from "./personal-grammar";
import { buildPersonalFinding, type PersonalReading, type Subject } from "./personal-finding";
import { shiftedToFirstPerson, withDroppedSubject } from "../text/person-shift";
import {
  readActivity,
  readGroup,
  readLifeChange,
  readOccasion,
  readPlanNoun,
  readThing,
  readTitle,
  readVenue,
  readVerbPhrase,
  type Thing,
} from "../text/phrase-reader";
import { isQuestion } from "../statements/presupposition-rules";
import type { Sentence } from "../text/sentence-splitter";

export function detectPersonal(
  clause: Sentence,
  context: TurnContext,
  prepared = prepareClause(clause.text, context.referenceTime),
): Finding | undefined {
  if (!context.fromUser || isQuestion(clause.text)) return undefined;
  const shifted = shiftedToFirstPerson(prepared.body);
  const subject = shifted === undefined ? speakerOf(context) : addresseeOf(context);
  const body = shifted ?? withDroppedSubject(prepared.body) ?? prepared.body;
  for (const rule of PERSONAL_RULES) {
    if (shifted !== undefined && !rule.secondPerson) continue;
    const groups = rule.pattern.exec(body)?.groups;
    const reading = groups && hasTime(rule, prepared) ? readGroups(rule, groups) : undefined;
    if (reading) return buildPersonalFinding(reading, { rule, clause, prepared, context, subject });
  }
  return undefined;
}

function speakerOf(context: TurnContext): Subject {
  return { name: context.speaker?.name, pronoun: "I", confidence: 0.85 };
}

/** What one says about the listener is a little less sure than what one says about oneself. */
function addresseeOf(context: TurnContext): Subject {
  return { name: context.addressee?.name, pronoun: "you", confidence: 0.8 };
}

function hasTime(rule: PersonalRule, prepared: PreparedClause): boolean {
  if (rule.needsTime === "any") return prepared.phrases.length > 0;
  if (rule.needsTime === "since") return prepared.phrases.some((p) => ["since", "for", "range"].includes(p.relation));
  return true;
}

function readGroups(rule: PersonalRule, groups: Record<string, string | undefined>): PersonalReading | undefined {
  if (rule.slot === "pet" || rule.slot === "kin") {
    const kinship = rule.slot === "pet" ? readPet(groups) : readKin(groups);
    return kinship && { kinship, companions: [] };
  }
  if (rule.slot === "life_change") {
    const literal = readLifeChange(groups.x ?? "");
    return literal === undefined ? undefined : { literal, companions: [] };
  }
  const company = ACCOMPANIED.has(rule.slot) ? splitCompany(groups.x ?? "") : { core: groups.x ?? "", companions: [] };
  if (!company) return undefined;
  if (rule.slot === "verb_phrase" || rule.slot === "plan_noun") {
    const literal = rule.slot === "verb_phrase" ? readVerbPhrase(company.core) : readPlanNoun(company.core);
    return literal === undefined ? undefined : { literal, companions: company.companions };
  }
  const object = readSlot(rule.slot, company.core);
  return object && { object, companions: company.companions };
}

/** Slots of outings and plans, where "with my kids" names company rather than part of the object. */
const ACCOMPANIED = new Set<Slot>(["venue", "occasion", "event", "own_event", "activity", "verb_phrase", "plan_noun"]);

function splitCompany(x: string): { core: string; companions: string[] } | undefined {
  const match = /^(?<core>.+?),?\s+with\s+(?<with>[^,]+)$/u.exec(x);
  if (!match?.groups) return { core: x, companions: [] };
  const companions = readCompanions(match.groups.with ?? "");
  return companions && { core: match.groups.core ?? "", companions };
}

function readSlot(slot: Slot, phrase: string): Thing | undefined {
  switch (slot) {
    case "thing":
      return readThing(phrase);
    case "venue":
      return readVenue(phrase);
    case "occasion":
      return readOccasion(phrase);
    case "title":
      return readTitle(phrase);
    case "event":
    case "own_event": {
      // "I won my first tournament": the event is the speaker's own, so "my" may open it.
      const venue = readVenue(slot === "own_event" ? phrase.replace(/^my\s+/i, "") : phrase);
      return venue?.type === "event" ? venue : undefined;
    }
    case "activity":
      return readActivity(phrase);
    case "group":
      return readGroup(phrase);
    default:
      return undefined;
  }
}
