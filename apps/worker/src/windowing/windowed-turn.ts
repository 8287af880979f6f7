// extract_assertions for an asynchronous turn: the heuristics finish it on its own when they
// can (and a name that fits two known entities keeps the one-turn path, which escalates to
// the strong model); otherwise the turn waits for a window of its session. Interactive turns,
// documents and windowed turns that were handed back go straight to the one-turn processor.
import { isEmptyDiff, type ExtractionInput } from "@recall/contracts";
import { extractionMode, type StageProcessor } from "@recall/queues";
import type { WorkerDeps } from "../deps";
import { loadKnownMemory } from "../services/known-memory";
import { ensurePlan } from "../services/plan";
import { loadSubject } from "../services/subject-loader";
import { joinWindow, windowLimits } from "./window-assembler";

export function windowAwareExtract(deps: WorkerDeps, oneTurn: StageProcessor): StageProcessor {
  return async (ctx) => {
    const { item, payload } = ctx;
    if (payload.subjectType !== "turn" || extractionMode(item) !== "windowed") return oneTurn(ctx);
    const subject = await loadSubject(deps.db, payload);
    await ensurePlan(deps, subject);
    const known = await loadKnownMemory(deps.db, subject.contextId);
    const input: ExtractionInput = {
      text: subject.units[0]!.text,
      kind: "turn",
      role: subject.role,
      speaker: subject.speaker,
      referenceTime: subject.occurredAt,
      ...known,
    };
    const threshold = deps.config.RECALL_HEURISTIC_CONFIDENCE;
    const { attempt, ambiguous } = await deps.cpu.run("rules", input, { threshold }, { lane: "background", signal: ctx.signal });
    if ((attempt.finished && !(ambiguous && !isEmptyDiff(attempt.diff))) || ambiguous) return oneTurn(ctx);
    const turn = await deps.db.turn.findUniqueOrThrow({ where: { id: subject.id } });
    await joinWindow(deps.db, deps, windowLimits(deps.config), turn, item);
    return { status: "waiting" };
  };
}
