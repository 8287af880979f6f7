// What a model-backed disambiguator is asked and how its answer is read. The model
// picks an option by number, or "new"; an answer that names no offered option is
// treated as "new", the choice that can never merge two things falsely.
import { z } from "zod";
import type { DisambiguationDecision, DisambiguationRequest } from "./entity-disambiguation";

export const DisambiguationAnswer = z.object({
  choice: z.string().describe('the number of the entity meant, or "new" when none of them is meant'),
  reason: z.string().describe("one short sentence"),
});
export type DisambiguationAnswer = z.infer<typeof DisambiguationAnswer>;

const SYSTEM = [
  "You decide whether a name found in new text refers to an entity already in memory.",
  "Merging two different things corrupts memory; creating a duplicate only costs a later merge.",
  'So answer "new" unless the text and the known facts make one option clearly the one meant.',
  "A different kind of thing with the same name (a fruit and a company, a person and a country) is not the same entity.",
].join(" ");

export function disambiguationPrompt(request: DisambiguationRequest): { system: string; user: string } {
  const options = request.options.map((o, i) => {
    const aliases = o.aliases.length > 0 ? `; also called ${o.aliases.join(", ")}` : "";
    const facts = o.facts.length > 0 ? `; known: ${o.facts.join("; ")}` : "";
    return `${i + 1}. ${o.name} (${o.type}${aliases}${facts})`;
  });
  const user = [
    `Name: "${request.name}", read as type ${request.type}.`,
    request.quote ? `Found in: "${request.quote}"` : "No surrounding text.",
    request.reason === "ambiguous" ? "It fits several known entities:" : "Known entities of the same name but another type:",
    ...options,
    'Answer with the number of the entity meant, or "new".',
  ].join("\n");
  return { system: SYSTEM, user };
}

export function decisionFrom(answer: DisambiguationAnswer, request: DisambiguationRequest): DisambiguationDecision {
  const index = Number.parseInt(answer.choice.trim(), 10);
  const option = Number.isInteger(index) ? request.options[index - 1] : undefined;
  return { entityId: option?.id ?? null, reason: answer.reason };
}
