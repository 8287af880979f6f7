// The economy table: one column per peer run, then Recall / mem0 ratios.
import type { PeerRun } from "./economy-mem0";
import type { EconomyCounts } from "./economy-server";

export interface PeerResult {
  name: string;
  run: PeerRun & { stages?: Record<string, number> };
  counts: EconomyCounts;
}

type Row = [label: string, value: (r: PeerResult) => string];

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const dec = (n: number): string => n.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const perTurn = (n: number, r: PeerResult): string => dec(n / Math.max(1, r.run.turns));
/** A peer's own time: the wall time less the counting server's time inside its handlers. */
const ownMs = (r: PeerResult): number => r.run.wallMs - r.counts.serverMs;

const ROWS: Row[] = [
  ["turns", (r) => int(r.run.turns)],
  [
    "finished by heuristics alone",
    (r) => (r.run.stages ? `${int(r.run.stages.heuristic ?? 0)} (${pct(r.run.stages.heuristic ?? 0, r.run.turns)})` : "-"),
  ],
  ["chat completions", (r) => int(r.counts.chatCalls)],
  ["  per turn", (r) => perTurn(r.counts.chatCalls, r)],
  ["embedding requests", (r) => int(r.counts.embeddingCalls)],
  ["  per turn", (r) => perTurn(r.counts.embeddingCalls, r)],
  ["prompt chars (chat messages)", (r) => int(r.counts.promptChars)],
  ["  per turn", (r) => int(r.counts.promptChars / Math.max(1, r.run.turns))],
  ["  per chat completion", (r) => int(r.counts.promptChars / Math.max(1, r.counts.chatCalls))],
  ["chat request body chars", (r) => int(r.counts.chatBodyChars)],
  ["est. chat prompt tokens (body/4)", (r) => int(r.counts.chatTokens)],
  ["  per turn", (r) => int(r.counts.chatTokens / Math.max(1, r.run.turns))],
  ["est. completion tokens", (r) => int(r.counts.completionTokens)],
  ["embedding input chars", (r) => int(r.counts.embeddingChars)],
  ["est. embedding tokens (body/4)", (r) => int(r.counts.embeddingTokens)],
  ["own wall time, ms", (r) => int(ownMs(r))],
  ["  per turn", (r) => dec(ownMs(r) / Math.max(1, r.run.turns))],
];

const RATIOS: [label: string, value: (r: PeerResult) => number][] = [
  ["chat completions", (r) => r.counts.chatCalls],
  ["embedding requests", (r) => r.counts.embeddingCalls],
  ["prompt chars", (r) => r.counts.promptChars],
  ["est. chat prompt tokens", (r) => r.counts.chatTokens],
  ["est. tokens, chat + embeddings", (r) => r.counts.chatTokens + r.counts.completionTokens + r.counts.embeddingTokens],
  ["own wall time", ownMs],
];

function pct(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
}

export function printEconomy(results: PeerResult[]): void {
  const width = Math.max(...ROWS.map(([label]) => label.length)) + 2;
  const columns = results.map((r) => Math.max(r.name.length, ...ROWS.map(([, value]) => value(r).length)) + 2);
  const line = (label: string, cells: string[]) => label.padEnd(width) + cells.map((c, i) => c.padStart(columns[i]!)).join("");
  console.log("");
  console.log(
    line(
      "",
      results.map((r) => r.name),
    ),
  );
  for (const [label, value] of ROWS) console.log(line(label, results.map(value)));
  for (const r of results) {
    const stages = r.run.stages ? Object.entries(r.run.stages).map(([s, n]) => `${s} ${n}`) : [];
    const models = Object.entries(r.counts.chatByModel).map(([m, n]) => `${m} ${n}`);
    console.log(`${r.name}: ${[...stages.map((s) => `stage ${s}`), ...models.map((m) => `model ${m}`)].join(", ") || "no model calls"}`);
    if (r.counts.unanswered > 0) console.log(`  ${r.name}: ${r.counts.unanswered} requests the counting server could not answer`);
  }
  printRatios(results);
}

function printRatios(results: PeerResult[]): void {
  const mem0 = results.filter((r) => r.name.startsWith("mem0"));
  const recall = results.filter((r) => r.name.startsWith("Recall"));
  for (const m of mem0) {
    console.log("");
    console.log(`Recall / ${m.name} (same turns; below 1 means Recall spends less)`);
    for (const [label, value] of RATIOS) {
      const cells = recall.map((r) => `${r.name} ${value(m) === 0 ? "-" : (value(r) / value(m)).toFixed(3)}`);
      console.log(`  ${label.padEnd(32)}${cells.join("   ")}`);
    }
  }
}
