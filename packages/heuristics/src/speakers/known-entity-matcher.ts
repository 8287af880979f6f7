// Recognises entities the context already knows, by name and alias, on word boundaries.
// Case-aware: a name with capitals ("Max", "Acme") matches only as written or in all
// caps, so "max 3 sentences" is not the dog Max; a lowercase name matches any case.
import type { KnownEntity } from "@recall/contracts";

export interface EntityMention {
  entity: KnownEntity;
  /** The text as it appears in the source. */
  surface: string;
  start: number;
  end: number;
}

export function findKnownEntities(text: string, known: KnownEntity[]): EntityMention[] {
  const candidates = known.flatMap((entity) =>
    uniqueNames(entity).flatMap((name) => occurrences(text, name).map((m) => ({ ...m, entity }))),
  );
  // Longest first, so "Alice Chen" wins over its alias "Alice" at the same place.
  candidates.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const chosen: EntityMention[] = [];
  for (const candidate of candidates) {
    if (chosen.some((c) => candidate.start < c.end && c.start < candidate.end)) continue;
    chosen.push(candidate);
  }
  return chosen.sort((a, b) => a.start - b.start);
}

function uniqueNames(entity: KnownEntity): string[] {
  return [...new Set([entity.name, ...entity.aliases].map((n) => n.trim()).filter((n) => n.length > 1))];
}

function occurrences(text: string, name: string): Omit<EntityMention, "entity">[] {
  const hasCapitals = name !== name.toLowerCase();
  const flags = hasCapitals ? "gu" : "giu";
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(name)}(?![\\p{L}\\p{N}_])`, flags);
  const found: Omit<EntityMention, "entity">[] = [];
  for (const match of text.matchAll(pattern)) found.push(span(match));
  if (hasCapitals && name.toUpperCase() !== name) {
    const upper = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(name.toUpperCase())}(?![\\p{L}\\p{N}_])`, "gu");
    for (const match of text.matchAll(upper)) found.push(span(match));
  }
  return found;
}

function span(match: RegExpMatchArray): Omit<EntityMention, "entity"> {
  const start = match.index ?? 0;
  return { surface: match[0], start, end: start + match[0].length };
}

export function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
