// Identity keys and entity types: the normal forms entity resolution compares.
import { latinFolded, latinLookalike, visibleName } from "./name-forms";

export { visibleName };

/**
 * Normalised name: what a reader sees (NFKC, no invisible or bidirectional controls, an override
 * undone: name-forms.ts), look-alike letters inside a mixed-script word folded to Latin, case-folded,
 * accents kept, punctuation and repeated spaces dropped.
 */
export function identityKey(name: string): string {
  return keyOf(latinFolded(visibleName(name)));
}

/**
 * The identity key of the Latin name a name written wholly in another script looks like, when it
 * differs from the name's own key: the resolver flags a new entity that looks like a known one.
 */
export function lookalikeKey(name: string): string | undefined {
  const lookalike = latinLookalike(visibleName(name));
  const key = lookalike === undefined ? undefined : keyOf(lookalike);
  return key && key !== identityKey(name) ? key : undefined;
}

function keyOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\u2019']s\b/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Why a name with no letter or digit is refused, wherever a name is written. */
export const NAMELESS_MESSAGE = "must contain a letter or digit (symbols, spaces and invisible characters name nothing)";

/**
 * Whether a name names anything: "!!!", "???" and a lone zero-width space all have the empty
 * identity key, so every one of them would resolve to the same invisible entity.
 */
export function namesSomething(name: string): boolean {
  return identityKey(name) !== "";
}

const TYPE_SYNONYMS: Record<string, string> = {
  company: "organization",
  organisation: "organization",
  org: "organization",
  business: "organization",
  employer: "organization",
  place: "location",
  city: "location",
  country: "location",
  human: "person",
  people: "person",
  user: "person",
};

/** `topic` is the wildcard type: it matches any type and upgrades to the specific one on reuse. */
export const WILDCARD_TYPE = "topic";

export function normaliseType(type: string | undefined): string {
  const t = (type ?? WILDCARD_TYPE)
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return TYPE_SYNONYMS[t] ?? (t || WILDCARD_TYPE);
}

export function typesCompatible(a: string, b: string): boolean {
  return a === b || a === WILDCARD_TYPE || b === WILDCARD_TYPE;
}
