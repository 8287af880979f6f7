// POST /query: search over committed memory (facts, instructions) and the retained
// raw text (turns, document nodes) — so text whose extraction failed is still found.
// Every kind is its own full-text list; reciprocal rank fusion merges them, and the
// vector retriever's list when one is configured and its provider answered (see
// vector-retriever.ts). The answer says which retrievers took part.
import type { DbOrTx } from "@recall/db";
import { fuseRankings, type RankedList } from "./rank-fusion";
import { searchStatements } from "./search-sql";
import type { SearchHit, SearchInput, SearchLink, SearchResult } from "./search-types";
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
  const lists = input.kinds.map((kind) =>
    listOf(
      `full_text:${kind}`,
      fullText.filter((h) => h.kind === kind),
    ),
  );
  if (semantic?.ok) lists.push(listOf(VECTOR_RETRIEVER, semantic.hits));
  const results = fuseRankings(lists, (a, b) => b.raw_score - a.raw_score)
    .slice(0, input.limit)
    .map((f) => ({ ...f.item, score: f.score, ranks: f.ranks }));
  return { results, retrievers: [FULL_TEXT, vectorStatus(vector, semantic)] };
}

async function fullTextHits(db: DbOrTx, input: SearchInput): Promise<SearchHit[]> {
  if (input.kinds.length === 0 || input.query.trim() === "") return [];
  const statements = searchStatements(input, input.now ?? new Date());
  const rows = (await Promise.all(statements.map((sql) => db.$queryRaw<HitRow[]>(sql)))).flat();
  return rows.map(toHit);
}

/** Vector hits come through here too, so both carry the same compact links. */
function listOf(name: string, hits: SearchHit[]): RankedList<SearchHit> {
  return { name, items: hits.map((h) => ({ key: `${h.kind}:${h.id}`, item: { ...h, link: compactLink(h.link) } })) };
}

function toHit(r: HitRow): SearchHit {
  return { kind: r.kind, id: r.id, text: r.text, raw_score: r.raw_score, link: r.link as SearchLink };
}

/** jsonb_build_object keeps SQL nulls; a link only names what exists. */
function compactLink(link: SearchLink): SearchLink {
  return Object.fromEntries(Object.entries(link).filter(([, v]) => v !== null && v !== undefined)) as SearchLink;
}
