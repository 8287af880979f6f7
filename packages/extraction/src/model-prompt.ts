// Prompts for the model stages: the skill's guidance, the purpose, and what is known.
import type { ExtractionInput } from "./diff";
import type { ExtractionGuidance } from "./extractor";

export function systemPrompt(guidance: ExtractionGuidance): string {
  return [
    "You extract durable memory from text for an assistant's long-term store.",
    "Return only facts the text states; never invent. Every attribute, relation, instruction and revocation",
    "must carry `evidence`: a span copied character for character from the input.",
    "memory_category: identity (who someone is: name, role, employer, home), knowledge (facts about the world),",
    "context (situational, temporary). significance: skip for passing remarks not worth keeping.",
    "Instructions are standing directives to the assistant; revocations withdraw an active one.",
    "Record an uncertainty instead of guessing when the text contradicts itself or a reference is ambiguous.",
    guidance.purpose ? `Purpose of this memory space: ${guidance.purpose}` : "",
    `Extraction skill ${guidance.skillId}:`,
    guidance.skillBody,
  ]
    .filter(Boolean)
    .join("\n");
}

export function userPrompt(input: ExtractionInput): string {
  const known = input.knownEntities.slice(0, 100).map((e) => `- ${e.name} (${e.type})`);
  const instructions = input.activeInstructions.map((i) => `- ${i.label}: ${i.description}`);
  return [
    `Reference time: ${input.referenceTime.toISOString()}`,
    input.role ? `Speaker role: ${input.role}` : "",
    known.length ? `Known entities:\n${known.join("\n")}` : "",
    instructions.length ? `Active instructions:\n${instructions.join("\n")}` : "",
    `Input (${input.kind === "turn" ? "conversation turn" : "document excerpt"}):\n<<<\n${input.text}\n>>>`,
  ]
    .filter(Boolean)
    .join("\n\n");
}
