// pnpm bench:gate — how much of a casual conversation the heuristic stage finishes without a
// model, and whether its small-talk gate swallows turns that matter (LoCoMo). Each turn is
// given with its speaker's name; both speakers are known people.
//   LOCOMO_DIR      data folder (default ../shared/data/locomo from the repo root)
//   GATE_THRESHOLD  heuristic confidence threshold (default: the service's RECALL_HEURISTIC_CONFIDENCE, 0.75)
//   --samples N     print N finished turns with their facts (spread over the run), N swallowed
//                   cited turns and N uncited turns left to a model
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@recall/config";
import { loadConversations } from "../shared/gate-locomo";
import { figuresOf, printFigures, printSamples } from "./gate-report";
import { runConversation, type TurnResult } from "./gate-run";

function main(): void {
  const repoRoot = path.resolve(__dirname, "../..");
  const dir = process.env.LOCOMO_DIR ?? path.resolve(repoRoot, "../shared/data/locomo");
  if (!fs.existsSync(dir)) {
    console.log(`bench:gate: no LoCoMo data at ${dir}; nothing to measure.`);
    return;
  }
  // The same threshold the service uses unless GATE_THRESHOLD overrides it.
  const threshold = Number(process.env.GATE_THRESHOLD ?? loadConfig().RECALL_HEURISTIC_CONFIDENCE);
  const samplesAt = process.argv.indexOf("--samples");
  const samples = samplesAt > 0 ? Number(process.argv[samplesAt + 1] ?? "20") : 0;
  const all: TurnResult[] = [];
  for (const conversation of loadConversations(dir)) {
    const results = runConversation(conversation, threshold);
    printFigures(`${conversation.file} (${conversation.speakers.join(" & ")})`, figuresOf(results));
    all.push(...results);
  }
  printFigures(`all conversations (threshold ${threshold})`, figuresOf(all));
  if (samples > 0) printSamples(all, samples);
}

main();
