// The extension point for semantic search. /query always runs Postgres full-text
// search; embedding similarity joins the fusion only when a VectorRetriever is
// supplied. None ships: it needs an embedding provider (a model that turns text into
// vectors) and the pgvector extension (a `vector` column plus an HNSW index on turns,
// document nodes and facts), and neither exists on the machines this was built on.
// An implementation embeds `input.query`, orders rows by `embedding <=> $query` with
// the same context, scope and validity filters as full-text search, and returns hits
// best first; fusion then merges them with the full-text lists by reciprocal rank.
import { Prisma, type DbOrTx } from "@recall/db";
import type { SearchHit, SearchInput } from "./search-types";

export interface VectorRetriever {
  readonly name: string;
  search(db: DbOrTx, input: SearchInput): Promise<SearchHit[]>;
}

export interface RetrieverStatus {
  name: string;
  enabled: boolean;
  /** Why a retriever is off, in words an operator can act on. */
  reason?: string;
}

/** Reports why vector search is off: no retriever configured, and whether pgvector is even installed. */
export async function vectorStatus(db: DbOrTx, retriever: VectorRetriever | undefined): Promise<RetrieverStatus> {
  if (retriever) return { name: "vector", enabled: true };
  const rows = await db.$queryRaw<{ installed: boolean }[]>(
    Prisma.sql`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed`,
  );
  const pgvector = rows[0]?.installed ? "pgvector is installed" : "pgvector is not installed in this database";
  return { name: "vector", enabled: false, reason: `no embedding provider configured; ${pgvector}` };
}
