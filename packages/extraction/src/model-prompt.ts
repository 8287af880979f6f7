// Prompts for the model stages: the skill's guidance, the purpose, and what is known.
import { ATTACHMENT_NOTE, hasAttachmentLines, type ExtractionInput } from "@recall/contracts";
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

const MAX_KNOWN_ENTITIES = 100;

/**
 * The input with what is already known. `escalation` tells the strong model why the input
 * reached it (an ambiguous name, a contradicting first answer), so it attends to exactly that.
 */
export function userPrompt(input: ExtractionInput, escalation?: string): string {
  const instructions = input.activeInstructions.map((i) => `- ${i.label}: ${i.description}`);
  return [
    `Reference time: ${input.referenceTime.toISOString()}`,
    input.role ? `Speaker role: ${input.role}` : "",
    input.speaker ? `Speaker: ${input.speaker} ("I", "me" and "my" in the input refer to ${input.speaker})` : "",
    knownEntitiesBlock(input.knownEntities),
    instructions.length ? `Active instructions:\n${instructions.join("\n")}` : "",
    escalation ? `Take care: ${escalation}.` : "",
    input.kind === "turn" && hasAttachmentLines(input.text) ? ATTACHMENT_NOTE : "",
    `Input (${input.kind === "turn" ? "conversation turn" : "document excerpt"}):\n<<<\n${input.text}\n>>>`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** Known entities come newest first (earlier chunks of the same document before stored memory), so the cap drops the oldest. */
export function knownEntitiesBlock(entities: ExtractionInput["knownEntities"]): string {
  if (entities.length === 0) return "";
  const lines = entities.slice(0, MAX_KNOWN_ENTITIES).map((e) => {
    const aliases = e.aliases.length > 0 ? `; also called ${e.aliases.join(", ")}` : "";
    return `- ${e.name} (${e.type}${aliases})`;
  });
  return `Known entities (use these names when the text refers to them):\n${lines.join("\n")}`;
}
