// extract_assertions for an asynchronous turn: the heuristics finish it on its own when they
// can (and a name that fits two known entities keeps the one-turn path, which escalates to
// the strong model); otherwise the turn waits for a window of its session. Interactive turns,
// documents and windowed turns that were handed back go straight to the one-turn processor,
// which gets the same claim and known entities (read once per job).
import { isEmptyDiff, type ExtractionInput, kindOf } from "@recall/contracts";
import type { Tx } from "@recall/db";
import { extractionMode, type StageHandler } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import type { KnownMemory } from "../services/known-memory";
import { planRecorded, resolvePlan, writePlan } from "../services/plan";
import { extractedSubject } from "../services/subject-loader";
import { windowModelUsable } from "./model-availability";
import { joinWindow, windowLimits } from "./window-assembler";

export function windowAwareExtract(deps: WorkerDeps, oneTurn: StageHandler<KnownMemory>): StageHandler<KnownMemory> {
  return {
    load: oneTurn.load,
    async process(ctx) {
      const { item, claim } = ctx;
      if (!kindOf(item.subjectType).groupable || extractionMode(item) !== "windowed") return oneTurn.process(ctx);
      const subject = extractedSubject(claim);
      const input: ExtractionInput = {
        text: subject.units[0]!.text,
        kind: "turn",
        role: subject.role,
        speaker: subject.speaker,
        referenceTime: subject.occurredAt,
        ...ctx.input,
      };
      const threshold = deps.config.RECALL_HEURISTIC_CONFIDENCE;
      const { attempt, ambiguous } = await deps.cpu.run("rules", input, { threshold }, { lane: "background", signal: ctx.signal });
      if ((attempt.finished && !(ambiguous && !isEmptyDiff(attempt.diff))) || ambiguous) return oneTurn.process(ctx);
      // No model to read a window: the one-turn path commits the rules' sure part and marks the rest awaiting a model.
      if (!windowModelUsable(deps)) return oneTurn.process(ctx);
      // The window reads the plan of its first turn: it is recorded as the turn joins.
      const plan = resolvePlan(deps, subject);
      const write = planRecorded(plan, claim.plan) ? undefined : (tx: Tx) => writePlan(tx, plan);
      await joinWindow(deps.db, deps, windowLimits(deps.config), claim.subject.turn!, item, write);
      return { status: "waiting" };
    },
  };
}
