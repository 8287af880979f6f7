// POST /query: search over committed memory (facts, instructions) and the retained
// raw text (turns, document nodes) — so text whose extraction failed is still found.
// Every kind is its own full-text list (BM25, search-ranked.ts); a matching fact lifts
// the turn it was read from; weighted reciprocal rank fusion merges the lists, and the
// vector retriever's list when one is configured and its provider answered (see
// vector-retriever.ts). The answer says which retrievers took part. Each hit's text is cut to
// an excerpt around the query's words only once the ranking is final, so the order (and the
// repeated-turn check, which reads whole texts) is what it would be without the cut.
import type { DbOrTx } from "@recall/db";
import { excerptOf } from "../answer-bounds";
import { fuseRankings, type RankedList } from "./rank-fusion";
import { searchStatements } from "./search-ranked";
import type { SearchHit, SearchInput, SearchLink, SearchResult } from "./search-types";
import { fusionWeights, rankingOf } from "./search-weights";
import { VECTOR_RETRIEVER, vectorStatus, type RetrieverStatus, type VectorRetriever } from "./vector-retriever";

interface HitRow {
  kind: SearchHit["kind"];
  id: string;
  text: string;
  raw_score: number;
  link: Record<string, unknown>;
}

export interface SearchOutcome {
  results: SearchResult[];
  retrievers: RetrieverStatus[];
}

const FULL_TEXT: RetrieverStatus = { name: "full_text", enabled: true, ran: true };

export async function searchMemory(db: DbOrTx, input: SearchInput, vector?: VectorRetriever): Promise<SearchOutcome> {
  const [fullText, semantic] = await Promise.all([fullTextHits(db, input), vector?.search(db, input)]);
  const weights = rankingOf(input.ranking);
  const fusion = fusionWeights(weights);
  const lifted = liftSourceTurns(fullText, weights.factLift);
  const lists = input.kinds.map((kind) =>
    listOf(
      `full_text:${kind}`,
      lifted.filter((h) => h.kind === kind),
      fusion[kind],
    ),
  );
  if (semantic?.ok) lists.push(listOf(VECTOR_RETRIEVER, semantic.hits, fusion.vector));
  const results = withoutRepeatedTurns(fuseRankings(lists, (a, b) => b.raw_score - a.raw_score))
    .slice(0, input.limit)
    .map((f) => ({ ...f.item, ...excerptOf(f.item.text, input.query), score: f.score, ranks: f.ranks }));
  return { results, retrievers: [FULL_TEXT, vectorStatus(vector, semantic)] };
}

async function fullTextHits(db: DbOrTx, input: SearchInput): Promise<SearchHit[]> {
  if (input.kinds.length === 0 || input.query.trim() === "") return [];
  const statements = searchStatements(input, input.now ?? new Date());
  const rows = (await Promise.all(statements.map((sql) => db.$queryRaw<HitRow[]>(sql)))).flat();
  return withoutRestatements(rows.map(toHit));
}

/**
 * A fact said again is one fact to a reader (fact-query.ts, shownToReader): of the statements of one
 * entity's same value, one hit stays, the best-scoring (each links its own source).
 */
function withoutRestatements(hits: SearchHit[]): SearchHit[] {
  const best = new Map<string, SearchHit>();
  const keyOf = (h: SearchHit) =>
    h.kind === "attribute" || h.kind === "relation" ? `${h.kind}:${h.link.entity_id}:${h.text}` : `${h.kind}:${h.id}`;
  for (const h of hits) {
    const seen = best.get(keyOf(h));
    if (!seen || h.raw_score > seen.raw_score) best.set(keyOf(h), h);
  }
  return hits.filter((h) => best.get(keyOf(h)) === h);
}

/**
 * A turn said twice in the same words (a repeated message, an import sent again under new ids) is one result: the
 * better-ranked stays. After fusion, as either copy may come from either retriever.
 */
export function withoutRepeatedTurns<T extends { item: Pick<SearchHit, "kind" | "text"> }>(ranked: T[]): T[] {
  const said = new Set<string>();
  return ranked.filter(({ item }) => {
    if (item.kind !== "turn") return true;
    const words = item.text.trim().replace(/\s+/g, " ").toLowerCase();
    if (said.has(words)) return false;
    said.add(words);
    return true;
  });
}

/** Turns gain `factLift` of the scores of facts read from them, then are re-ordered; other hits are unchanged. */
function liftSourceTurns(hits: SearchHit[], factLift: number): SearchHit[] {
  const lift = new Map<string, number>();
  for (const h of hits)
    if ((h.kind === "attribute" || h.kind === "relation") && h.link.turn_id)
      lift.set(h.link.turn_id, (lift.get(h.link.turn_id) ?? 0) + factLift * h.raw_score);
  return hits
    .map((h) => (h.kind === "turn" && lift.has(h.id) ? { ...h, raw_score: h.raw_score + lift.get(h.id)! } : h))
    .sort((a, b) => b.raw_score - a.raw_score);
}

/** Vector hits come through here too, so both carry the same compact links. */
function listOf(name: string, hits: SearchHit[], weight: number): RankedList<SearchHit> {
  return { name, weight, items: hits.map((h) => ({ key: `${h.kind}:${h.id}`, item: { ...h, link: compactLink(h.link) } })) };
}

function toHit(r: HitRow): SearchHit {
  return { kind: r.kind, id: r.id, text: r.text, raw_score: r.raw_score, link: r.link as SearchLink };
}

/** jsonb_build_object keeps SQL nulls; a link only names what exists. */
function compactLink(link: SearchLink): SearchLink {
  return Object.fromEntries(Object.entries(link).filter(([, v]) => v !== null && v !== undefined)) as SearchLink;
}
