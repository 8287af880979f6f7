// Coverage, agreement and CPU of the rules against the annotations, per conversation and in
// all, and a sample of rule facts beside their turn's annotations for a person to audit.
import { agreesWithAnnotations, showFact } from "./gate-annotations";
import type { TurnResult } from "./gate-run";

export interface AnnotationFigures {
  turns: number;
  /** Turns with at least one observation tied to them. */
  annotated: number;
  /** Annotated turns where the rules commit at least one fact. */
  covered: number;
  /** Rule facts on annotated turns (the ones an annotation can confirm), and how many one does. */
  judged: number;
  agreeing: number;
  /** Rule facts on turns no observation is tied to: not judged. */
  unjudged: number;
  cpuMsPerTurn: number;
}

export function annotationFiguresOf(results: TurnResult[]): AnnotationFigures {
  const annotated = results.filter((r) => r.turn.observations.length > 0);
  const judged = annotated.flatMap((r) => r.committed.map((f) => agreesWithAnnotations(f, r.turn.observations)));
  return {
    turns: results.length,
    annotated: annotated.length,
    covered: annotated.filter((r) => r.committed.length > 0).length,
    judged: judged.length,
    agreeing: judged.filter(Boolean).length,
    unjudged: results.filter((r) => r.turn.observations.length === 0).reduce((n, r) => n + r.committed.length, 0),
    cpuMsPerTurn: results.reduce((s, r) => s + r.cpuMs, 0) / Math.max(1, results.length),
  };
}

const share = (part: number, whole: number): number => part / Math.max(1, whole);

export function printAnnotationFigures(f: AnnotationFigures): void {
  const coverage = share(f.covered, f.annotated);
  const agreement = share(f.agreeing, f.judged);
  const mark = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`  annotated turns               ${f.annotated}`);
  console.log(`  rule coverage                 ${f.covered} (${(100 * coverage).toFixed(1)}%; goal >= 35%: ${mark(coverage >= 0.35)})`);
  console.log(
    `  rule agreement                ${f.agreeing} of ${f.judged} facts on annotated turns (${agreement.toFixed(2)}; goal >= 0.8: ${mark(agreement >= 0.8)}); ${f.unjudged} facts on turns without annotations`,
  );
  console.log(`  heuristic CPU per turn        ${f.cpuMsPerTurn.toFixed(3)} ms`);
}

/** The last line of the run: one JSON object a script can read. */
export function summaryJson(f: AnnotationFigures, threshold: number): string {
  return JSON.stringify({
    turns: f.turns,
    annotated_turns: f.annotated,
    rule_coverage: Number(share(f.covered, f.annotated).toFixed(4)),
    rule_agreement: Number(share(f.agreeing, f.judged).toFixed(4)),
    rule_facts_judged: f.judged,
    rule_facts_unjudged: f.unjudged,
    heuristic_cpu_ms_per_turn: Number(f.cpuMsPerTurn.toFixed(4)),
    threshold,
  });
}

/** `count` rule facts of annotated turns, spread evenly over the run, each beside its turn's observations. */
export function printAudit(results: TurnResult[], count: number): void {
  const rows = results.flatMap((r) => (r.turn.observations.length > 0 ? r.committed.map((fact) => ({ r, fact })) : []));
  const picked = rows.length <= count ? rows : Array.from({ length: count }, (_, i) => rows[Math.floor((i * rows.length) / count)]!);
  console.log(`audit: ${picked.length} rule facts of annotated turns, beside the annotations (= agrees, x does not)`);
  for (const { r, fact } of picked) {
    console.log(`  [${r.turn.diaId}] ${r.turn.speaker}: ${r.turn.text}`);
    console.log(`    ${agreesWithAnnotations(fact, r.turn.observations) ? "=" : "x"} ${showFact(fact)}`);
    for (const o of r.turn.observations) console.log(`      note: ${o}`);
  }
}
