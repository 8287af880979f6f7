// What an extraction is told about stored memory, and how it grows while one subject is read: later inputs of a
// subject (a document's chunks, a batch's turns) see the entities earlier ones found. No rules are loaded here, so
// the processes that only hand inputs to the CPU pool's threads can use it.
import type { ExtractionDiff, ExtractionInput } from "@recall/contracts";

export type KnownMemory = Pick<ExtractionInput, "knownEntities" | "knownAttributes" | "activeInstructions">;

/** Adds the diff's new entities first in the list (newest first, like stored memory), once each; at most `max` are kept. */
export function rememberEntities(known: KnownMemory, diff: ExtractionDiff, max = Infinity): void {
  const key = (name: string, type: string) => `${name.trim().toLowerCase()}|${type.trim().toLowerCase()}`;
  const seen = new Set(known.knownEntities.map((e) => key(e.name, e.type)));
  const fresh = diff.entities.filter((e) => !seen.has(key(e.name, e.type)));
  known.knownEntities.unshift(...fresh.map((e) => ({ id: "", name: e.name, type: e.type, aliases: e.aliases })));
  if (known.knownEntities.length > max) known.knownEntities.length = max;
}
