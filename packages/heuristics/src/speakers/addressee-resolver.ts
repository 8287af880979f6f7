// Who "you" is in a turn: the one known person, other than the speaker, whom the turn
// addresses by name ("Thanks, Mel!", "Hey Jon, …"). Two names in address, or none, leave
// "you" unresolved, and second-person statements then go to a model.
import type { KnownEntity } from "@recall/contracts";
import type { TurnContext } from "../heuristic-types";
import { knownByName } from "./speaker-resolver";
import { analyse } from "../text/token-analysis";
import { findVocatives } from "./vocative-finder";

export function resolveAddressee(text: string, known: KnownEntity[], speaker: TurnContext["speaker"]): KnownEntity | undefined {
  const analysis = analyse(text);
  const vocatives = [...findVocatives(analysis.text, analysis.tokens)].sort((a, b) => a - b);
  const people = new Map<string, KnownEntity>();
  for (const name of namesAt(analysis.tokens, vocatives)) {
    const person = knownByName(known, name);
    if (person && person.name.toLowerCase() !== speaker?.name.toLowerCase()) people.set(person.id, person);
  }
  return people.size === 1 ? [...people.values()][0] : undefined;
}

/** Adjacent vocative tokens form one name ("Mary Ann"); each single token is tried too ("Jon"). */
function namesAt(tokens: { word: string; end: number; start: number }[], indexes: number[]): string[] {
  const names: string[] = [];
  for (let k = 0; k < indexes.length; k += 1) {
    const i = indexes[k] ?? 0;
    const word = tokens[i]?.word ?? "";
    names.push(word);
    if (indexes[k + 1] === i + 1) names.push(`${word} ${tokens[i + 1]?.word ?? ""}`);
  }
  return names;
}
