// POST /query: search over committed memory (facts, instructions) and the retained
// raw text (turns, document nodes) — so text whose extraction failed is still found.
// Every kind is its own ranked list; reciprocal rank fusion merges them, and a vector
// retriever's list when one is configured (see vector-retriever.ts).
import type { DbOrTx } from "@recall/db";
import { fuseRankings, type RankedList } from "./rank-fusion";
import { searchStatements } from "./search-sql";
import type { SearchHit, SearchInput, SearchLink, SearchResult } from "./search-types";
import type { VectorRetriever } from "./vector-retriever";

interface HitRow {
  kind: SearchHit["kind"];
  id: string;
  text: string;
  raw_score: number;
  link: Record<string, unknown>;
}

export async function searchMemory(db: DbOrTx, input: SearchInput, vector?: VectorRetriever): Promise<SearchResult[]> {
  if (input.kinds.length === 0 || input.query.trim() === "") return [];
  const [fullText, semantic] = await Promise.all([fullTextHits(db, input), vector ? vector.search(db, input) : []]);
  const lists: RankedList<SearchHit>[] = input.kinds.map((kind) =>
    listOf(
      `full_text:${kind}`,
      fullText.filter((h) => h.kind === kind),
    ),
  );
  if (vector) lists.push(listOf(vector.name, semantic));
  return fuseRankings(lists, (a, b) => b.raw_score - a.raw_score)
    .slice(0, input.limit)
    .map((f) => ({ ...f.item, score: f.score, ranks: f.ranks }));
}

async function fullTextHits(db: DbOrTx, input: SearchInput): Promise<SearchHit[]> {
  const statements = searchStatements(input, input.now ?? new Date());
  const rows = (await Promise.all(statements.map((sql) => db.$queryRaw<HitRow[]>(sql)))).flat();
  return rows.map((r) => ({ kind: r.kind, id: r.id, text: r.text, raw_score: r.raw_score, link: compactLink(r.link) }));
}

function listOf(name: string, hits: SearchHit[]): RankedList<SearchHit> {
  return { name, items: hits.map((h) => ({ key: `${h.kind}:${h.id}`, item: h })) };
}

/** jsonb_build_object keeps SQL nulls; a link only names what exists. */
function compactLink(link: Record<string, unknown>): SearchLink {
  return Object.fromEntries(Object.entries(link).filter(([, v]) => v !== null && v !== undefined)) as SearchLink;
}
