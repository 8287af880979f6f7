// The admin erasure of a whole context: every table's rows of the context, deleted table by table in the caller's
// transaction (which holds the context row FOR UPDATE, so no insert that references it runs meanwhile), then the
// context itself; its API keys, sources, documents (and nodes), sessions (and turns) and direct writes go with it
// by cascade, counted before. Erasure receipts of the context are kept; its tombstones go (nothing of it is left).
import { Prisma, type Tx } from "@recall/db";
import type { PipelineRecords } from "../core/pipeline-records";
import type { ErasureCounts } from "./erasure-delete";

/** Tables with a context_id column, in an order that leaves nothing dangling. */
const BY_CONTEXT = [
  "reviews",
  "review_commits",
  "knowledge_candidates",
  "entity_mentions",
  "supersessions",
  "attributes",
  "relations",
  "assertions",
  "instructions",
  "uncertainties",
  "entities",
  "embeddings",
  "commit_records",
  "retractions",
  "extraction_plans",
  "turn_batches",
  "extraction_windows",
  "erased_inputs",
  "webhooks",
  "model_calls",
  "model_call_days",
  "context_imports",
  // Last: every row above named its scope set (core/scope-sets.ts).
  "scope_sets",
] as const;

export async function deleteContext(
  tx: Tx,
  contextId: string,
  records: PipelineRecords,
): Promise<{ counts: ErasureCounts; blobPaths: string[] }> {
  const ctx = Prisma.sql`${contextId}::uuid`;
  const blobs = await tx.$queryRaw<{ path: string }[]>`
    SELECT DISTINCT blob_path AS path FROM documents WHERE context_id = ${ctx} AND blob_path IS NOT NULL`;
  // The pipeline's records first (work, the commits' announcements, webhook events with their deliveries).
  const counts: ErasureCounts = await records.forgetContext(tx, contextId);
  for (const table of BY_CONTEXT) counts[table] = await tx.$executeRaw`DELETE FROM ${Prisma.raw(table)} WHERE context_id = ${ctx}`;
  counts.idempotency_keys = await tx.$executeRaw`DELETE FROM idempotency_keys WHERE scope = ${`context:${contextId}`}`;
  counts.document_nodes =
    await tx.$executeRaw`DELETE FROM document_nodes WHERE document_id IN (SELECT id FROM documents WHERE context_id = ${ctx})`;
  for (const table of ["documents", "sources", "turns", "sessions", "fact_writes", "api_keys"]) {
    counts[table] = await tx.$executeRaw`DELETE FROM ${Prisma.raw(table)} WHERE context_id = ${ctx}`;
  }
  counts.search_term_stats = await tx.$executeRaw`DELETE FROM search_term_stats WHERE context_id = ${ctx}`;
  counts.search_doc_stats = await tx.$executeRaw`DELETE FROM search_doc_stats WHERE context_id = ${ctx}`;
  counts.contexts = await tx.$executeRaw`DELETE FROM contexts WHERE id = ${ctx}`;
  return { counts, blobPaths: blobs.map((b) => b.path) };
}
