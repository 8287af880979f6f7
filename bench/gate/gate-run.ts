// Feeds every turn of a conversation to the heuristic stage, growing the context as a
// real session would: known people, entities produced, facts, active instructions. Each
// turn carries its speaker's name, so "I" resolves without a model.
import { performance } from "node:perf_hooks";
import {
  isEmptyDiff,
  type ActiveInstruction,
  type ExtractionDiff,
  type ExtractionInput,
  type KnownAttribute,
  type KnownEntity,
} from "@recall/contracts";
import { runHeuristics } from "@recall/heuristics";
import type { GateConversation, GateTurn } from "../shared/gate-locomo";
import { ruleFactsOf, type RuleFact } from "./gate-annotations";

export interface TurnResult {
  turn: GateTurn;
  finished: boolean;
  empty: boolean;
  /** The finished diff's facts in short form, for judging them by eye. */
  facts: string[];
  /** Objects and values of the finished diff's facts, to compare with the dataset's notes. */
  values: string[];
  /** The facts the service commits from this turn with no model: the finished diff, or the rules' sure part of it. */
  committed: RuleFact[];
  ms: number;
  /** CPU time of the rules alone (process.cpuUsage, user + system). */
  cpuMs: number;
}

export function runConversation(conversation: GateConversation, threshold: number): TurnResult[] {
  const entities: KnownEntity[] = conversation.speakers.map((name, i) => ({ id: `speaker-${i}`, name, type: "person", aliases: [] }));
  const attributes: KnownAttribute[] = [];
  let instructions: ActiveInstruction[] = [];
  return conversation.turns.map((turn) => {
    const input = turnInput(turn, { entities, attributes, instructions });
    const [started, cpu] = [performance.now(), process.cpuUsage()];
    const outcome = runHeuristics(input, { threshold });
    const used = process.cpuUsage(cpu);
    const ms = performance.now() - started;
    const diff = outcome.finished ? outcome.diff : outcome.partial;
    learn(diff, entities, attributes);
    if (outcome.finished) instructions = nextInstructions(instructions, diff);
    const facts = outcome.finished ? factsOf(outcome.diff) : [];
    const values = outcome.finished ? valuesOf(outcome.diff) : [];
    const empty = outcome.finished && isEmptyDiff(outcome.diff);
    const cpuMs = (used.user + used.system) / 1_000;
    return { turn, finished: outcome.finished, empty, facts, values, committed: ruleFactsOf(diff), ms, cpuMs };
  });
}

/** A LoCoMo turn as the extractor sees it: said by a user who names themselves, with what the session knows so far. */
export function turnInput(
  turn: GateTurn,
  known: { entities: KnownEntity[]; attributes: KnownAttribute[]; instructions: ActiveInstruction[] },
): ExtractionInput {
  return {
    text: turn.text,
    kind: "turn",
    role: "user",
    speaker: turn.speaker,
    referenceTime: turn.referenceTime,
    knownEntities: known.entities,
    knownAttributes: known.attributes,
    activeInstructions: known.instructions,
  };
}

function factsOf(diff: ExtractionDiff): string[] {
  const when = (f: { valid_from?: string; valid_to?: string }) =>
    f.valid_from || f.valid_to ? ` [${f.valid_from?.slice(0, 10) ?? ""}..${f.valid_to?.slice(0, 10) ?? ""}]` : "";
  return [
    ...diff.relations.map((r) => `${r.subject} ${r.verb} ${r.object}${when(r)}`),
    ...diff.attributes.map((a) => `${a.entity}.${a.key} = ${a.value}${when(a)}`),
    ...diff.instructions.map((i) => `instruction: ${i.label}`),
  ];
}

function valuesOf(diff: ExtractionDiff): string[] {
  return [
    ...diff.relations.map((r) => r.object),
    ...diff.attributes.map((a) => a.value),
    ...diff.instructions.map((i) => `${i.label} ${i.description}`),
  ];
}

export function learn(diff: ExtractionDiff, entities: KnownEntity[], attributes: KnownAttribute[]): void {
  for (const e of diff.entities) {
    if (!entities.some((k) => k.name.toLowerCase() === e.name.toLowerCase()))
      entities.push({ id: `e${entities.length}`, name: e.name, type: e.type, aliases: e.aliases });
  }
  attributes.push(...diff.attributes.map((a) => ({ entity: a.entity, key: a.key, value: a.value })));
  attributes.push(...diff.relations.map((r) => ({ entity: r.subject, key: r.verb, value: r.object })));
}

export function nextInstructions(active: ActiveInstruction[], diff: ExtractionDiff): ActiveInstruction[] {
  const revoked = new Set(diff.revocations.map((r) => r.instruction_id));
  const added = diff.instructions.map((i, n) => ({ id: `i${active.length + n}`, label: i.label, description: i.description }));
  return [...active.filter((i) => !revoked.has(i.id)), ...added];
}
