// Reads the object of a casual statement ("hiking", "coconut milk", "a support group",
// "Paris", "take a short trip") and says what kind of thing it is. Phrases that point back
// into the conversation ("how you paint", "that first movie", "it"), that hold a clause, or
// that speak of "my …" are refused: what they mean depends on context only a model has.
import { EVENT_HEADS, GROUP_HEADS, PLACE_HEADS } from "../lexicons/personal-lexicon";
import { isFunctionWord } from "../lexicons/phatic-lexicon";
import { withoutAppositive, withoutPraise, withoutPurpose, withoutTail } from "./phrase-trimmer";
import { CLAUSE_VERB, GENERIC_GERUNDS, POINTING, isConcrete, isGerund, isProperName, plainWords } from "./phrase-words";

export interface Thing {
  name: string;
  /** Entity type: activity, topic, work, event, location, group. */
  type: string;
}

const TITLE =
  /^(?:(?:a|an|the)\s+(?:[\p{L}-]+\s+){0,3}(?:called|named|titled)\s+)?["“]([^"”]{2,60})["”](?:\s+by\s+\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,3})?$/u;

/** Something liked, played or researched: an activity ("creating art"), a topic ("sci-fi movies"), a title, a name. */
export function readThing(phrase: string): Thing | undefined {
  const text = withoutPurpose(phrase);
  const title = TITLE.exec(text)?.[1];
  if (title) return { name: title, type: "work" };
  if (isProperName(text)) return { name: text, type: "topic" };
  const words = plainWords(text.replace(/^all\s+/i, ""));
  // An activity may take a few more words than a topic: "helping people and making a positive impact".
  const most = isGerund(words?.[0]) ? 8 : 6;
  if (!words || words.length > most || /^(?:a|an|the|some|any|to|with|about|for|in|on|at)$/i.test(words[0] ?? "")) return undefined;
  return words.some(isConcrete) ? { name: words.join(" "), type: isGerund(words[0]) ? "activity" : "topic" } : undefined;
}

/** A named work or thing: a quoted title ("Dune") or a proper name, not a common noun phrase. */
export function readTitle(phrase: string): Thing | undefined {
  const thing = readThing(phrase);
  return thing && (thing.type === "work" || /^\p{Lu}/u.test(thing.name)) ? thing : undefined;
}

/** Where one went or what one attended: an event ("a support group") or a place ("the beach", "Paris"). */
export function readVenue(phrase: string): Thing | undefined {
  const text = withoutPraise(withoutAppositive(withoutTail(phrase).replace(/^(?:a|an|the)\s+/i, "")));
  const head = text.split(/\s+/).pop()?.toLowerCase() ?? "";
  if (isProperName(text)) return { name: text, type: EVENT_HEADS.has(head) ? "event" : "location" };
  // "a concert in Boston", "a road trip to Oregon": an event named with its place.
  const destination = /^(.+?)\s+(?:to|in|at)\s+(\p{Lu}.*)$/u.exec(text);
  const core = destination?.[1] !== undefined ? plainWords(destination[1]) : undefined;
  if (core && isProperName(destination?.[2] ?? "") && EVENT_HEADS.has(core[core.length - 1]?.toLowerCase() ?? ""))
    return { name: text, type: "event" };
  const words = plainWords(text);
  // "to see a concert" is a purpose, not a place: a venue starts with a noun or its modifier.
  if (!words || words.length > 8 || isFunctionWord(words[0] ?? "")) return undefined;
  if (words.length > 6) return modifiedEvent(words);
  if (PLACE_HEADS.has(head)) return { name: words.join(" "), type: "location" };
  // "an event" or "a class" alone does not say which one.
  if (words.length < 2) return undefined;
  if (EVENT_HEADS.has(head)) return { name: words.join(" "), type: "event" };
  if (GROUP_HEADS.has(head)) return { name: words.join(" "), type: "group" };
  return modifiedEvent(words);
}

/** "a council meeting for adoption", "an interview for a design internship": an event named by what it is for or about. */
function modifiedEvent(words: string[]): Thing | undefined {
  const at = words.findIndex((w, i) => i > 0 && /^(?:for|about|on|of)$/i.test(w));
  const head = words[at - 1]?.toLowerCase() ?? "";
  if (at < 1 || words.length - at < 2 || words.length > 8 || !EVENT_HEADS.has(head)) return undefined;
  return words.slice(at + 1).some(isConcrete) ? { name: words.join(" "), type: "event" } : undefined;
}

/** Where one had a good time: an event or a place, which may be the speaker's own ("our camping trip"). */
export function readOccasion(phrase: string): Thing | undefined {
  return readVenue(phrase.replace(/^(?:my|our)\s+/i, ""));
}

/** A group one joins: "a book club", "the local choir", or a named one. */
export function readGroup(phrase: string): Thing | undefined {
  const venue = readVenue(phrase);
  return venue && (venue.type === "group" || venue.type === "event" || /\p{Lu}/u.test(venue.name))
    ? { ...venue, type: "group" }
    : undefined;
}

/** An activity named by a gerund phrase: "camping", "volunteering at a local shelter". */
export function readActivity(phrase: string): Thing | undefined {
  const words = plainWords(withoutPurpose(phrase));
  if (!words || words.length > 7 || !isGerund(words[0])) return undefined;
  // "playing" or "working" alone does not say at what.
  if (words.length === 1 && GENERIC_GERUNDS.has(words[0] ?? "")) return undefined;
  return words.some(isConcrete) ? { name: words.join(" "), type: "activity" } : undefined;
}

/** What one plans to do: a verb phrase with something concrete in it ("take a short trip"). */
export function readVerbPhrase(phrase: string): string | undefined {
  const text = withoutTail(phrase);
  const words = text.split(/\s+/);
  if (words.length > 12 || !/^[a-z]+$/.test(words[0] ?? "") || NOT_VERBS.test(words[0] ?? "")) return undefined;
  if (POINTING.test(text.replace(/\bmy\b/gi, "")) || CLAUSE_VERB.test(text)) return undefined;
  return words.slice(1).some(isConcrete) ? text : undefined;
}

/** What one is planning, as a noun phrase: "a trip to the East Coast", "a surprise party". */
export function readPlanNoun(phrase: string): string | undefined {
  const text = withoutTail(phrase);
  const words = text.split(/\s+/);
  if (!/^(?:a|an)$/i.test(words[0] ?? "") || words.length > 10) return undefined;
  if (POINTING.test(text) || CLAUSE_VERB.test(text) || /\bmy\b/i.test(text)) return undefined;
  return words.slice(1).some(isConcrete) ? text : undefined;
}

const NOT_VERBS =
  /^(?:a|an|the|to|be|and|but|or|so|for|with|of|in|on|at|by|from|really|just|also|definitely|probably|maybe|still|even|keep|try|make|do|get|see)$/;

/** Where a life change's words end: the next clause ("… and I love it", "… while I look for investors"). */
const CLAUSE_BREAK = /\s*(?:[,;:(]|\s-+\s|\s(?:and|but|so|because|'cause|cause|while|since|which|where|who|after|before|until)\s).*$/iu;

/**
 * A job or home change in the speaker's own words, up to the next clause: "got a new job at a
 * bakery", "moved to a small town near the coast". Refused when it points into the conversation.
 */
export function readLifeChange(phrase: string): string | undefined {
  // A time phrase taken out of the clause may leave its preposition behind ("moving to Lisbon in").
  const text = withoutTail(phrase.replace(CLAUSE_BREAK, "")).replace(/\s+(?:in|on|at|by|since|during|from)$/i, "");
  const words = text.split(/\s+/);
  if (words.length < 2 || words.length > 12 || POINTING.test(text.replace(/\b(?:my|our)\b/gi, ""))) return undefined;
  return text;
}
