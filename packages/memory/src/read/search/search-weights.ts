// The full-text ranking's weights (docs/operating.md, Full-text and vector search), in one
// place so that bench:recall can tune them leave-one-conversation-out: a search may carry
// `ranking` overrides (never taken from a request; only code passes them). The defaults are
// chosen for kinds of question, not for one data set.
import type { SearchKind } from "./search-types";

export interface RankingWeights {
  /** Share of a turn's score added to each neighbour in its session. */
  neighbour: number;
  /** Share of a turn's score added to the turns two before and after it. */
  neighbour2: number;
  /** Multiplier bonus for a turn said by a person the query names. */
  namedSpeaker: number;
  /** Multiplier bonus for a turn said in a month or year the query names. */
  calendar: number;
  /** The speaker's name, scored as one occurrence of that word (times this weight). */
  speaker: number;
  /** Multiplier bonus for a turn stating a time when the question asks when. */
  statesTime: number;
  /** Multiplier bonus for text said (facts: begun) within the period a query names. */
  inPeriod: number;
  /** A matching fact adds this share of its BM25 score to the turn it was read from. */
  factLift: number;
  /**
   * A turn's key holds the facts read from it: a turn gains this share of the BM25 score of the current facts whose
   * evidence points into it (entity names, key and value, predicate and object), and becomes a candidate by them
   * even when its own words miss the query.
   */
  factKey: number;
  /** Weight of each fact kind's list (attributes, relations, instructions) in the fusion; turns and documents count 1. */
  factList: number;
  /** Share of its session's score (the sum of its matching turns' best scores) a turn gains: the two-stage reading. */
  session: number;
}

export const RANKING_DEFAULTS: RankingWeights = {
  neighbour: 0.4,
  neighbour2: 0.3,
  namedSpeaker: 1,
  calendar: 2,
  speaker: 0,
  statesTime: 0.25,
  inPeriod: 0.5,
  factLift: 0.5,
  factKey: 0.5,
  factList: 0.5,
  session: 0.5,
};

export function rankingOf(overrides: Partial<RankingWeights> | undefined): RankingWeights {
  return { ...RANKING_DEFAULTS, ...overrides };
}

export type FusionKind = SearchKind | "vector";

/** Fusion weights: the raw text is what was said; facts are the heuristics' or a model's reading of it. */
export function fusionWeights(w: RankingWeights): Record<FusionKind, number> {
  return { turn: 1, document_node: 1, attribute: w.factList, relation: w.factList, instruction: w.factList, vector: 1 };
}
