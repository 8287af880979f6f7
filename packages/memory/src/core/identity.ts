// Identity keys and entity types: the normal forms entity resolution compares.

/** Normalised name: case-folded, accents kept, punctuation and repeated spaces dropped. */
export function identityKey(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2019']s\b/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
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
