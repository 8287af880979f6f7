// An extract-again report on the wire (HTTP, MCP, dashboard).
import type { ExtractAgainReport } from "@recall/pipeline";

export function extractAgainView(r: ExtractAgainReport) {
  return {
    dry_run: r.dryRun,
    matched: r.matched,
    inputs: r.inputs,
    remaining: r.remaining,
    by_kind: r.byKind,
    model_calls: {
      total: r.modelCalls.total,
      windows: r.modelCalls.windows,
      document_chunks: r.modelCalls.documentChunks,
      single: r.modelCalls.single,
    },
    estimate: {
      model: r.estimate.model,
      input_tokens: r.estimate.inputTokens,
      output_tokens: r.estimate.outputTokens,
      cost_usd: r.estimate.costUsd,
      priced: r.estimate.priced,
    },
    queued: r.queued,
  };
}
