// What a model answers for a window of turns: the same diff as for one turn, each item naming
// the turn it comes from (its index in the window). Items are then routed to their turn, whose
// validation checks the evidence quote against that turn's own text exactly as for a single turn.
import { z } from "zod";
import type { ExtractionDiff } from "@recall/contracts";
import { ModelDiff, fromModelDiff } from "./model-output";

const turn = z.number().int().min(0).describe("index of the turn (as numbered in the input) this item comes from");

function withTurn<T extends z.ZodObject>(item: T) {
  return item.extend({ turn });
}

const shape = ModelDiff.shape;

export const WindowDiff = z.object({
  entities: z.array(withTurn(shape.entities.element)),
  attributes: z.array(withTurn(shape.attributes.element)),
  relations: z.array(withTurn(shape.relations.element)),
  instructions: z.array(withTurn(shape.instructions.element)),
  revocations: z.array(withTurn(shape.revocations.element)),
  uncertainties: z.array(withTurn(shape.uncertainties.element)),
});
export type WindowDiff = z.infer<typeof WindowDiff>;

const FIELDS = ["entities", "attributes", "relations", "instructions", "revocations", "uncertainties"] as const;

/** Turn indexes the answer names that the window does not have (the answer is then unusable as a whole). */
export function strayTurns(diff: WindowDiff, turnCount: number): number[] {
  const stray = FIELDS.flatMap((f) => (diff[f] as { turn: number }[]).map((item) => item.turn)).filter((t) => t >= turnCount);
  return [...new Set(stray)];
}

/** One diff per turn of the window, in window order. */
export function splitWindowDiff(diff: WindowDiff, turnCount: number): ExtractionDiff[] {
  return Array.from({ length: turnCount }, (_, index) => {
    const own = <K extends (typeof FIELDS)[number]>(field: K) =>
      (diff[field] as { turn: number }[]).filter((item) => item.turn === index).map(({ turn: _turn, ...rest }) => rest);
    return fromModelDiff({
      entities: own("entities"),
      attributes: own("attributes"),
      relations: own("relations"),
      instructions: own("instructions"),
      revocations: own("revocations"),
      uncertainties: own("uncertainties"),
    } as ModelDiff);
  });
}
