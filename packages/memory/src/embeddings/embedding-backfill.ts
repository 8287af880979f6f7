// Embeds what has no vector for the configured model yet: turns whose extraction failed
// (truth maintenance never ran for them), everything written before vector search was
// turned on, and, after a switch of model or of dimensions, everything again. The same
// text and scope as the commit-time writer (TEXT_SOURCES), only rows a search could
// return (current facts, active instructions, every turn and document node), in batches
// of one embeddings call each. Safe to stop and run again: each batch is stored as it
// comes back, and what was stored is not asked for twice.
import type { Embedder } from "@recall/contracts";
import { Prisma, type DbOrTx } from "@recall/db";
import { OWNER_OF } from "../read/search/embedder";
import { storeEmbeddings, type EmbeddingReport } from "./embedding-writer";
import { searchableAt, TEXT_SOURCES } from "../read/search/search-sql";
import { SEARCH_KINDS, type SearchKind } from "../read/search/search-types";

export interface BackfillOptions {
  /** Only this context; all contexts when undefined. */
  contextId?: string;
  /** Vectors of another size (RECALL_EMBEDDING_DIMENSIONS changed) are replaced too. */
  dimensions?: number;
  /** Texts per embeddings call. */
  batchSize?: number;
  signal?: AbortSignal;
  /** Called after each stored batch, for progress. */
  onBatch?: (kind: SearchKind, embedded: number) => void;
}

export interface BackfillReport extends EmbeddingReport {
  calls: number;
}

interface Missing {
  id: string;
  text: string;
  scope: string[];
  context_id: string;
}

export async function backfillEmbeddings(db: DbOrTx, embedder: Embedder, options: BackfillOptions = {}): Promise<BackfillReport> {
  const report: BackfillReport = { embedded: 0, tokensUsed: 0, calls: 0 };
  const batchSize = options.batchSize ?? 256;
  for (const kind of SEARCH_KINDS) {
    for (;;) {
      options.signal?.throwIfAborted();
      const rows = await db.$queryRaw<Missing[]>(missingStatement(kind, embedder.modelRef, options, batchSize));
      if (rows.length === 0) break;
      const result = await embedder.embed(
        rows.map((r) => r.text),
        options.signal,
      );
      report.calls += 1;
      report.tokensUsed += result.usage.inputTokens;
      for (const [contextId, group] of byContext(rows, result.vectors)) {
        await storeEmbeddings(
          db,
          contextId,
          embedder.modelRef,
          group.map(({ row }) => ({ kind, id: row.id, text: row.text, scope: row.scope })),
          group.map(({ vector }) => vector),
        );
      }
      report.embedded += rows.length;
      options.onBatch?.(kind, rows.length);
    }
  }
  return report;
}

/** Searchable rows of one kind with no vector of this model (or of the wrong size), oldest id first. */
function missingStatement(kind: SearchKind, model: string, options: BackfillOptions, limit: number): Prisma.Sql {
  const s = TEXT_SOURCES[kind];
  const where = [Prisma.sql`btrim(${s.text}) <> ''`, searchableAt(kind, new Date())];
  if (options.contextId) where.push(Prisma.sql`${s.context} = ${options.contextId}::uuid`);
  const sameSize = options.dimensions === undefined ? Prisma.empty : Prisma.sql`AND e.dimensions = ${options.dimensions}`;
  return Prisma.sql`SELECT f.id, ${s.text} AS text, ${s.scope} AS scope, ${s.context} AS context_id FROM ${s.from}
    WHERE ${Prisma.join(where, " AND ")} AND NOT EXISTS (SELECT 1 FROM embeddings e
      WHERE e.owner_kind = ${OWNER_OF[kind]}::"EmbeddingOwner" AND e.owner_id = f.id AND e.model = ${model} ${sameSize})
    ORDER BY f.id LIMIT ${limit}`;
}

function byContext(rows: Missing[], vectors: number[][]): Map<string, { row: Missing; vector: number[] }[]> {
  const groups = new Map<string, { row: Missing; vector: number[] }[]>();
  rows.forEach((row, i) => {
    const vector = vectors[i];
    if (vector === undefined) throw new Error(`the embedding model answered ${vectors.length} vectors for ${rows.length} texts`);
    groups.set(row.context_id, [...(groups.get(row.context_id) ?? []), { row, vector }]);
  });
  return groups;
}
