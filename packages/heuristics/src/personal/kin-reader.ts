// Pets and relatives in a statement: "a dog named Max", "my brother Sam", "two kids",
// and the company named after "with" ("with my husband and kids", "with friends").
import { isCommonWord } from "../lexicons/phatic-lexicon";
import { KIN, PET_SPECIES } from "../lexicons/personal-lexicon";

export interface Kinship {
  /** The species or kinship word as said ("dog", "brother"). */
  word: string;
  name?: string;
  count?: string;
}

const FRIENDS =
  /^(?:(?:my|some|a few|a couple of|a couple|a bunch of|a group of|old|close|good|best)\s+)*(?:friends?|buddies|pals|mates|coworkers|co-workers|workmates|colleagues|classmates|teammates)$/i;
const OWN_KIN = /^my\s+(.+)$/i;

/** A pet when the word names a species and any name reads as a name. */
export function readPet(groups: Record<string, string | undefined>): Kinship | undefined {
  return read(groups.species, groups, PET_SPECIES);
}

export function readKin(groups: Record<string, string | undefined>): Kinship | undefined {
  const kin = read(groups.kin, groups, KIN);
  // "I have a family" says little; "my family is called …" is not a name at all.
  return kin && !(kin.word === "family" && (kin.name !== undefined || groups.count !== undefined)) ? kin : undefined;
}

/** Relatives in the company phrase; [] for friends only; undefined when the company is someone a model must identify. */
export function readCompanions(phrase: string): string[] | undefined {
  const text = phrase.trim();
  if (FRIENDS.test(text)) return [];
  const own = OWN_KIN.exec(text)?.[1];
  if (own === undefined) return undefined;
  const parts = own.split(/\s*(?:,|\band\b|&)\s*(?:my\s+)?/i).filter((p) => p.length > 0);
  const kin = parts.map((p) => p.replace(/^(?:little|young|younger|older|big|two|three|four)\s+/i, "").toLowerCase());
  if (kin.length === 0 || kin.some((k) => !KIN.has(k) && !FRIENDS.test(k))) return undefined;
  return kin.filter((k) => KIN.has(k)).map((k) => (k === "fam" ? "family" : k));
}

function read(word: string | undefined, groups: Record<string, string | undefined>, lexicon: Set<string>): Kinship | undefined {
  const lower = word?.toLowerCase();
  if (lower === undefined || !lexicon.has(lower)) return undefined;
  const name = groups.name;
  if (name !== undefined && name.split(/\s+/).some((part) => isCommonWord(part))) return undefined;
  return { word: lower === "fam" ? "family" : lower, name, count: groups.count };
}
