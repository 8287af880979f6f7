// The model calls a stage attempt made, kept beside its attempt record: what GET …/usage sums (calls, tokens and
// estimated cost per context, by day, stage or model). One statement for the attempt's calls, none when it made none.
import type { DbOrTx } from "@recall/db";
import type { LedgerEntry } from "@recall/telemetry";

export interface CallingAttempt {
  contextId: string;
  workItemId: string;
  attempt: number;
  queue: string;
}

export async function recordModelCalls(db: DbOrTx, attempt: CallingAttempt, calls: readonly LedgerEntry[]): Promise<number> {
  if (calls.length === 0) return 0;
  const { count } = await db.modelCall.createMany({
    data: calls.map((c) => ({
      ...attempt,
      stage: c.stage,
      model: c.model,
      outcome: c.outcome,
      inputTokens: c.inputTokens,
      outputTokens: c.outputTokens,
      costUsd: c.costUsd,
      createdAt: c.at,
    })),
  });
  return count;
}
