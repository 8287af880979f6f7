import type { Excerpt } from "../answer-bounds";
import type { ReaderScope } from "../read-types";
import type { RankingWeights } from "./search-weights";

export const SEARCH_KINDS = ["attribute", "relation", "instruction", "turn", "document_node"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchInput extends ReaderScope {
  query: string;
  limit: number;
  kinds: readonly SearchKind[];
  /** `any`: a hit needs one of the query's words (ranked by how many and how often); `all`: web-search syntax, every word. */
  match: "any" | "all";
  /** The instant "current" means for facts; defaults to now. */
  now?: Date;
  /** Overrides of the ranking's weights (bench:recall's tuning); never read from a request. */
  ranking?: Partial<RankingWeights>;
}

/** Where a hit lives: a fact and the span of its evidence, or a turn, or a document node's byte span. */
export interface SearchLink {
  fact_id?: string;
  assertion_id?: string;
  entity_id?: string;
  instruction_id?: string;
  turn_id?: string;
  session_id?: string;
  seq?: number;
  document_id?: string;
  node_id?: string;
  start_byte?: number;
  end_byte?: number;
}

export interface SearchHit {
  kind: SearchKind;
  id: string;
  text: string;
  /** The retriever's own score (ts_rank, or a similarity); only comparable within one list. */
  raw_score: number;
  link: SearchLink;
}

export interface SearchResult extends SearchHit {
  /** Whether `text` is an excerpt of a longer text (answer-bounds.ts); `excerpt` then says where it sits in it. */
  truncated: boolean;
  excerpt?: Excerpt["excerpt"];
  /** Fused reciprocal-rank score; comparable across kinds. */
  score: number;
  ranks: Record<string, number>;
}
