// Which index serves vector search: pgvector when the Postgres server has the extension
// (an HNSW index over the stored vectors cast to vector(n), cosine distance), else the SQL
// scan of recall_cosine() (vector-sql.ts). Decided once per process at start-up; the answer
// is reported in /query's `retrievers` and in /readyz. The index is an expression index
// over `embeddings.vector::vector(n)`, partial on `dimensions = n`, so one table holds any
// model and size and nothing is written twice; it is built concurrently, without blocking writes.
import { asOwner, type DbOrTx } from "@recall/db";

export type VectorIndex = { kind: "pgvector_hnsw"; dimensions?: number } | { kind: "sql_scan"; reason: string };

const NOT_AVAILABLE = "the pgvector extension is not available on this Postgres server; embeddings are scanned in SQL (recall_cosine)";

/** Enables pgvector and its index for `dimensions` when it can; never throws. */
export async function prepareVectorIndex(db: DbOrTx, dimensions: number | undefined): Promise<VectorIndex> {
  // DDL: as the connecting user (the tables' owner), not the service role row-level security holds.
  return asOwner("startup", () => enableVectorIndex(db, dimensions));
}

async function enableVectorIndex(db: DbOrTx, dimensions: number | undefined): Promise<VectorIndex> {
  try {
    const available = await db.$queryRaw<{ name: string }[]>`SELECT name::text AS name FROM pg_available_extensions WHERE name = 'vector'`;
    if (available.length === 0) return { kind: "sql_scan", reason: NOT_AVAILABLE };
    await db.$executeRawUnsafe("CREATE EXTENSION IF NOT EXISTS vector");
    if (dimensions !== undefined) await db.$executeRawUnsafe(hnswIndex(dimensions));
    return { kind: "pgvector_hnsw", dimensions };
  } catch (err) {
    return { kind: "sql_scan", reason: `pgvector could not be enabled (${(err as Error).message}); embeddings are scanned in SQL` };
  }
}

function hnswIndex(dimensions: number): string {
  const n = Math.trunc(dimensions);
  return `CREATE INDEX CONCURRENTLY IF NOT EXISTS embeddings_vector_hnsw_${n} ON embeddings
    USING hnsw ((vector::vector(${n})) vector_cosine_ops) WHERE dimensions = ${n}`;
}

export function describeIndex(index: VectorIndex): string {
  if (index.kind === "sql_scan") return `sql scan: ${index.reason}`;
  return index.dimensions ? `pgvector hnsw over vector(${index.dimensions})` : "pgvector (no index: set RECALL_EMBEDDING_DIMENSIONS)";
}
