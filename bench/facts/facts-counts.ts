// What bench:facts reads back from a context once its work is done: the stand-in's candidates
// (stages fast and strong) by outcome, validation's refusals by reason, committed facts
// (attributes and relations) by the stage that read them, and the entities memory holds.
import type pg from "pg";

export interface FactsCounts {
  standin: { candidates: number; committed: number; refused: Record<string, number>; other: Record<string, number> };
  facts: number;
  factsByStage: Record<string, number>;
  entities: number;
  entityNames: string[];
}

interface CandidateRow {
  stage: string;
  kind: string;
  status: string;
  validation_errors: { field?: string; message?: string }[] | null;
}

const MODEL_STAGES = new Set(["fast", "strong"]);

export async function readFactsCounts(pool: pg.Pool, contextId: string): Promise<FactsCounts> {
  const { rows } = await pool.query<CandidateRow>(
    "SELECT stage, kind, status, validation_errors FROM knowledge_candidates WHERE context_id = $1",
    [contextId],
  );
  const standin = { candidates: 0, committed: 0, refused: {} as Record<string, number>, other: {} as Record<string, number> };
  const factsByStage: Record<string, number> = {};
  for (const row of rows) {
    const fact = row.kind === "attribute" || row.kind === "relation";
    if (fact && row.status === "committed") factsByStage[row.stage] = (factsByStage[row.stage] ?? 0) + 1;
    if (!MODEL_STAGES.has(row.stage)) continue;
    standin.candidates += 1;
    if (row.status === "committed") standin.committed += 1;
    else if (row.status === "invalid") for (const reason of reasons(row)) standin.refused[reason] = (standin.refused[reason] ?? 0) + 1;
    else standin.other[row.status] = (standin.other[row.status] ?? 0) + 1;
  }
  const entities = await pool.query<{ name: string }>("SELECT name FROM entities WHERE context_id = $1 AND retracted_at IS NULL", [
    contextId,
  ]);
  const facts = Object.values(factsByStage).reduce((a, b) => a + b, 0);
  const entityNames = entities.rows.map((r) => r.name);
  return { standin, facts, factsByStage, entities: entityNames.length, entityNames };
}

/** A refusal's reason without the values it quotes ("entity type \"x\" is not known…" for every x), one per issue. */
function reasons(row: CandidateRow): string[] {
  const issues = row.validation_errors ?? [];
  if (issues.length === 0) return [`${row.kind}: no reason given`];
  return [
    ...new Set(
      issues.map((i) => `${row.kind} ${i.field ?? "?"}: ${(i.message ?? "").replace(/"[^"]*"/g, '"…"').replace(/\(.*\)/, "")}`.trim()),
    ),
  ];
}
