// Semantic search for POST /query. With an embedding model configured, the query text is
// embedded (one call) and the stored embeddings in the reader's scope are ranked by
// cosine similarity in Postgres (vector-sql.ts); fusion then merges that list with the
// full-text ones by reciprocal rank. A provider failure is not the reader's problem: the
// search answers from full text and the retriever's status says why the vector list is missing.
import type { Embedder } from "@recall/contracts";
import type { DbOrTx } from "@recall/db";
import { isProviderFailure } from "./embedder";
import type { SearchHit, SearchInput } from "./search-types";
import { prepareVectorIndex, type VectorIndex } from "./vector-index";
import { vectorStatements } from "./vector-sql";

export type VectorSearch = { ok: true; hits: SearchHit[]; index?: VectorIndex["kind"] } | { ok: false; reason: string };

export interface VectorRetriever {
  /** The model reference the retriever reports and compares stored vectors under. */
  readonly model: string;
  /** Which index serves the search (decided once, at start-up); absent for a retriever that never searches. */
  index?(db: DbOrTx): Promise<VectorIndex>;
  /** Best first; a failure to embed the query is a value, never a throw. */
  search(db: DbOrTx, input: SearchInput): Promise<VectorSearch>;
}

export interface RetrieverStatus {
  name: string;
  /** Configured for this service. */
  enabled: boolean;
  /** Its list took part in this answer's fusion. */
  ran: boolean;
  model?: string;
  /** Why a retriever is off or did not run, in words an operator can act on. */
  reason?: string;
  /** For vectors: `pgvector_hnsw` or `sql_scan`. */
  index?: VectorIndex["kind"];
}

export const VECTOR_RETRIEVER = "vector";

interface VectorHitRow {
  kind: SearchHit["kind"];
  id: string;
  text: string;
  raw_score: number;
  link: Record<string, unknown>;
}

export function embeddingRetriever(embedder: Embedder, options: { dimensions?: number } = {}): VectorRetriever {
  let index: Promise<VectorIndex> | undefined;
  const indexOf = (db: DbOrTx) => (index ??= prepareVectorIndex(db, options.dimensions));
  return {
    model: embedder.modelRef,
    index: indexOf,
    async search(db, input) {
      if (input.kinds.length === 0 || input.query.trim() === "") return { ok: true, hits: [], index: (await indexOf(db)).kind };
      const [query, used] = await Promise.all([embedQuery(embedder, input.query), indexOf(db)]);
      if (!query.ok) return query;
      const now = input.now ?? new Date();
      const pgvector = used.kind === "pgvector_hnsw";
      const statements = vectorStatements(input, now, { model: embedder.modelRef, vector: query.vector, pgvector });
      const rows = (await Promise.all(statements.map((sql) => db.$queryRaw<VectorHitRow[]>(sql)))).flat();
      // Cosine similarities of one model are comparable across kinds, so the kinds merge into one list.
      const hits = rows.sort((a, b) => b.raw_score - a.raw_score).slice(0, input.limit);
      return { ok: true, hits: hits.map((r) => ({ ...r, link: r.link as SearchHit["link"] })), index: used.kind };
    },
  };
}

/** A model is configured but cannot be used (e.g. its credentials are missing): reported on every search, never run. */
export function unavailableRetriever(model: string, reason: string): VectorRetriever {
  return { model, search: async () => ({ ok: false, reason }) };
}

async function embedQuery(embedder: Embedder, text: string): Promise<{ ok: true; vector: number[] } | { ok: false; reason: string }> {
  try {
    const [vector] = (await embedder.embed([text])).vectors;
    if (vector) return { ok: true, vector };
    return { ok: false, reason: "the embedding provider returned no vector for the query; results are full-text only" };
  } catch (err) {
    if (!isProviderFailure(err)) throw err;
    return { ok: false, reason: `embedding the query failed (${err.message}); results are full-text only` };
  }
}

export function vectorStatus(retriever: VectorRetriever | undefined, search: VectorSearch | undefined): RetrieverStatus {
  if (!retriever) {
    return { name: VECTOR_RETRIEVER, enabled: false, ran: false, reason: "no embedding model configured: set RECALL_EMBEDDING_MODEL" };
  }
  const base = { name: VECTOR_RETRIEVER, enabled: true, model: retriever.model };
  if (search?.ok === false) return { ...base, ran: false, reason: search.reason };
  return { ...base, ran: search !== undefined, ...(search?.index ? { index: search.index } : {}) };
}
