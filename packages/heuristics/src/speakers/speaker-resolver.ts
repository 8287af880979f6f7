// Who "I" is in a turn: the speaker the caller named, else the person the turn introduces
// ("I'm Alice"), else the one person the context knows. With several known people and no
// name, "I" needs a model.
import type { ExtractionInput, KnownEntity } from "@recall/contracts";
import type { TurnContext } from "../heuristic-types";
import { splitClauses, type Sentence } from "../text/sentence-splitter";
import { introducedName } from "../statements/statement-detector";

export function resolveSpeaker(input: ExtractionInput, sentences: Sentence[]): TurnContext["speaker"] {
  const given = input.speaker?.trim();
  if (given) return knownByName(input.knownEntities, given) ?? { name: given, type: "person" };
  const named = sentences
    .flatMap(splitClauses)
    .map((c) => introducedName(c))
    .find((n) => n !== undefined);
  if (named !== undefined) return knownByName(input.knownEntities, named) ?? { name: named, type: "person" };
  const people = input.knownEntities.filter((e) => e.type.toLowerCase() === "person");
  return people.length === 1 ? people[0] : undefined;
}

export function knownByName(known: KnownEntity[], name: string): KnownEntity | undefined {
  const wanted = name.toLowerCase();
  return known.find((e) => e.type.toLowerCase() === "person" && [e.name, ...e.aliases].some((n) => n.toLowerCase() === wanted));
}
