// pnpm bench:gate — how much of a casual conversation the heuristic stage finishes without a
// model, whether its small-talk gate swallows turns that matter, and how the rules' facts
// measure against the annotators' observations (LoCoMo format). Each turn is given with its
// speaker's name; both speakers are known people.
//   --data <dir>    a LoCoMo-format folder (default: LOCOMO_DIR, else ../shared/data/locomo from the repo root)
//   GATE_THRESHOLD  heuristic confidence threshold (default: the service's RECALL_HEURISTIC_CONFIDENCE, 0.75)
//   --samples N     print N finished turns with their facts (spread over the run), N swallowed
//                   cited turns and N uncited turns left to a model
//   --audit N       print N rule facts beside their turn's annotations, for a person to audit
// The last line printed is one JSON object: turns, rule_coverage, rule_agreement, heuristic_cpu_ms_per_turn, …
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@recall/config";
import { defaultLocomoDir, loadConversations } from "../shared/gate-locomo";
import { annotationFiguresOf, printAnnotationFigures, printAudit, summaryJson } from "./gate-annotation-report";
import { figuresOf, printFigures, printSamples } from "./gate-report";
import { runConversation, type TurnResult } from "./gate-run";

function main(): void {
  const dir = path.resolve(option("--data") ?? defaultLocomoDir());
  if (!fs.existsSync(dir)) {
    console.log(`bench:gate: no LoCoMo data at ${dir}; nothing to measure.`);
    return;
  }
  // The same threshold the service uses unless GATE_THRESHOLD overrides it.
  const threshold = Number(process.env.GATE_THRESHOLD ?? loadConfig().RECALL_HEURISTIC_CONFIDENCE);
  const samples = Number(option("--samples") ?? 0);
  const audit = Number(option("--audit") ?? 0);
  const all: TurnResult[] = [];
  for (const conversation of loadConversations(dir)) {
    const results = runConversation(conversation, threshold);
    printFigures(`${conversation.file} (${conversation.speakers.join(" & ")})`, figuresOf(results));
    printAnnotationFigures(annotationFiguresOf(results));
    all.push(...results);
  }
  printFigures(`all conversations (threshold ${threshold})`, figuresOf(all));
  const figures = annotationFiguresOf(all);
  printAnnotationFigures(figures);
  if (samples > 0) printSamples(all, samples);
  if (audit > 0) printAudit(all, audit);
  console.log(summaryJson(figures, threshold));
}

/** The value after a flag (`--data dir`), if the flag is given. */
function option(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at > 0 ? process.argv[at + 1] : undefined;
}

main();
