// Internal shapes shared by the heuristic detectors.
import type { ActiveInstruction, ExtractionDiff, KnownAttribute, KnownEntity } from "@recall/contracts";
import type { ParsedTurn } from "./text/parsed-turn";
import type { Sentence } from "./text/sentence-splitter";

/** What one detector made of one sentence or clause. */
export interface Finding {
  diff: Partial<ExtractionDiff>;
  confidence: number;
  /** Short name of the rule, for the outcome's reason. */
  rule: string;
  /** False when the detector recognised the sentence but could not finish it (needs a model). */
  complete: boolean;
  /** Why an incomplete finding needs a model. */
  gap?: string;
}

export interface TurnContext {
  /** The whole source text; evidence offsets are relative to it. */
  text: string;
  /** Its one compromise parse, shared by every detector that reads parts of speech. */
  parsed: ParsedTurn;
  referenceTime: Date;
  /** Whether "I" and imperatives come from the person the memory is about. */
  fromUser: boolean;
  /** Who "I" is, when known. */
  speaker?: KnownEntity | { name: string; type: "person" };
  /** Who "you" is, when the turn addresses one known person by name. */
  addressee?: KnownEntity;
  knownEntities: KnownEntity[];
  knownAttributes: KnownAttribute[];
  activeInstructions: ActiveInstruction[];
}

export type Detector = (clause: Sentence, context: TurnContext) => Finding | undefined;
