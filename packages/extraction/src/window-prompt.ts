// The user prompt for a window: what is known about the session, then its turns numbered in
// order. Earlier turns give later ones their context ("she", "it"), but every item must be
// attributed to, and quoted from, the one turn that states it.
import { ATTACHMENT_NOTE, hasAttachmentLines, type ActiveInstruction, type KnownEntity } from "@recall/contracts";
import { knownEntitiesBlock } from "./model-prompt";

export interface WindowTurn {
  text: string;
  role?: string;
  speaker?: string;
  referenceTime: Date;
}

export interface WindowContext {
  knownEntities: KnownEntity[];
  activeInstructions: ActiveInstruction[];
}

export const WINDOW_RULES = [
  "The input is several consecutive turns of one conversation, numbered [0], [1], ….",
  "Extract from every turn. Give each item `turn`: the number of the turn that states it;",
  "its `evidence` must be copied character for character from that same turn.",
  'Earlier turns are context for later ones (who "she" or "it" is); attach facts to the named entity.',
  "A turn that states nothing worth keeping gets no items.",
].join("\n");

export function windowPrompt(turns: WindowTurn[], known: WindowContext): string {
  const instructions = known.activeInstructions.map((i) => `- ${i.label}: ${i.description}`);
  const numbered = turns.map((t, i) => {
    const who = [t.role, t.speaker ? `${t.speaker}; "I", "me" and "my" refer to ${t.speaker}` : ""].filter(Boolean).join(", ");
    return `[${i}] (${who}; said ${t.referenceTime.toISOString()})\n<<<\n${t.text}\n>>>`;
  });
  return [
    knownEntitiesBlock(known.knownEntities),
    instructions.length ? `Active instructions:\n${instructions.join("\n")}` : "",
    WINDOW_RULES,
    turns.some((t) => hasAttachmentLines(t.text)) ? ATTACHMENT_NOTE : "",
    `Turns:\n${numbered.join("\n\n")}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}
