// Figures for the heuristic gate: share finished without a model, share of cited
// (meaningful) turns the gate swallowed with an empty diff, and time per turn.
import { agreesWithNotes } from "./gate-agreement";
import type { TurnResult } from "./gate-run";

export interface GateFigures {
  turns: number;
  finished: number;
  finishedNonEmpty: number;
  cited: number;
  citedFinished: number;
  citedSwallowed: number;
  /** Cited turns finished with facts, and how many of those agree with the dataset's notes. */
  citedWithFacts: number;
  citedAgreeing: number;
  meanMs: number;
  p95Ms: number;
}

export function figuresOf(results: TurnResult[]): GateFigures {
  const cited = results.filter((r) => r.turn.cited);
  const withFacts = cited.filter((r) => r.finished && !r.empty);
  const speakers = [...new Set(results.map((r) => r.turn.speaker))];
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  return {
    turns: results.length,
    finished: results.filter((r) => r.finished).length,
    finishedNonEmpty: results.filter((r) => r.finished && !r.empty).length,
    cited: cited.length,
    citedFinished: cited.filter((r) => r.finished).length,
    citedSwallowed: cited.filter((r) => r.empty).length,
    citedWithFacts: withFacts.length,
    citedAgreeing: withFacts.filter((r) => agreesWithNotes(r.values, r.turn.notes, speakers)).length,
    meanMs: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length),
    p95Ms: times[Math.floor(times.length * 0.95)] ?? 0,
  };
}

const pct = (part: number, whole: number): string => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

export function printFigures(label: string, f: GateFigures): void {
  const finishedOk = f.finished / Math.max(1, f.turns) >= 0.4 ? "ok" : "MISSED";
  const swallowedOk = f.citedSwallowed / Math.max(1, f.cited) <= 0.02 ? "ok" : "MISSED";
  console.log(`${label}`);
  console.log(`  turns                         ${f.turns}`);
  console.log(
    `  finished without a model      ${f.finished} (${pct(f.finished, f.turns)}; goal >= 40%: ${finishedOk}); with a non-empty diff: ${f.finishedNonEmpty}`,
  );
  console.log(`  cited turns                   ${f.cited}; finished ${f.citedFinished} (${pct(f.citedFinished, f.cited)})`);
  console.log(`  cited turns finished empty    ${f.citedSwallowed} (${pct(f.citedSwallowed, f.cited)}; goal <= 2%: ${swallowedOk})`);
  console.log(
    `  cited turns finished w/ facts  ${f.citedWithFacts}; facts agree with the dataset's notes in ${f.citedAgreeing} (${pct(f.citedAgreeing, f.citedWithFacts)})`,
  );
  console.log(`  time per turn                 mean ${f.meanMs.toFixed(3)} ms, p95 ${f.p95Ms.toFixed(3)} ms`);
}

/**
 * Samples for honest tuning: cited turns the gate swallowed, uncited turns left to a model,
 * and finished turns with facts (spread over the run, not the first few), to judge by eye.
 */
export function printSamples(results: TurnResult[], count: number): void {
  const show = (title: string, rows: TurnResult[]) => {
    console.log(title);
    for (const r of rows.slice(0, count)) {
      console.log(`  [${r.turn.diaId}] ${r.turn.speaker}: ${r.turn.text}`);
      for (const fact of r.facts) console.log(`      -> ${fact}`);
    }
  };
  show(
    "finished turns with facts:",
    spread(
      results.filter((r) => r.finished && !r.empty),
      count,
    ),
  );
  show(
    "cited turns finished empty:",
    results.filter((r) => r.turn.cited && r.empty),
  );
  show(
    "uncited turns left to a model:",
    results.filter((r) => !r.turn.cited && !r.finished),
  );
}

/** `count` rows evenly spaced through `rows`. */
function spread(rows: TurnResult[], count: number): TurnResult[] {
  if (rows.length <= count) return rows;
  return Array.from({ length: count }, (_, i) => rows[Math.floor((i * rows.length) / count)]).filter(
    (r): r is TurnResult => r !== undefined,
  );
}
