// One full-text statement per kind of text, run side by side on separate connections.
// Each ranks by BM25 (search-bm25.ts) and adds what the kind of text allows:
// - turns: the speaker's name counts as a word of the turn (a question about Caroline
//   prefers what Caroline said); a turn passes NEIGHBOUR of its score to the turns just
//   before and after it in its session (an answer often only makes sense after the
//   question it answers, and names its topic in neither); a question asking when favours
//   turns that state a time, and a query naming a period favours turns said within it;
// - facts: a query naming a period favours values that began (or were observed) in it.
// Weights are documented in the README (Full-text search); they are for kinds of questions,
// not for any one data set.
import { Prisma } from "@recall/db";
import { bm25, queryTerms } from "./search-bm25";
import type { SearchIntent } from "./search-intent";
import { searchIntent } from "./search-intent";
import { TEXT_SOURCES, visibleRows } from "./search-sql";
import type { SearchInput, SearchKind } from "./search-types";

export const TURN_WEIGHTS = {
  /** Share of a turn's score added to each neighbour in its session. */
  neighbour: 0.4,
  /** The speaker's name, scored as one occurrence of that word (times this weight). */
  speaker: 0.5,
  /** Multiplier bonus for a turn stating a time when the question asks when. */
  statesTime: 0.25,
  /** Multiplier bonus for text said (facts: begun) within the period a query names. */
  inPeriod: 0.5,
};

/** How many of the best matching turns spread their score to neighbours. */
const CANDIDATES = 200;

/** Words and shapes that state a time in English text (not "may", mostly a modal verb). */
const STATES_TIME =
  "\\m(yesterday|today|tonight|tomorrow|ago|last|next|since|recently|weekend|(mon|tues|wednes|thurs|fri|satur|sun)day|" +
  "january|february|march|april|june|july|august|september|october|november|december|(19|20)[0-9]{2})\\M";

/** `any` ORs the query's own lexemes (stemmed, stop words dropped); `all` is websearch_to_tsquery's syntax. */
function tsQuery(input: SearchInput, intent: SearchIntent): Prisma.Sql {
  if (input.match === "all") return Prisma.sql`websearch_to_tsquery('english', ${input.query})`;
  return Prisma.sql`recall_any_tsquery(${intent.text})`;
}

function boost(condition: Prisma.Sql, weight: number): Prisma.Sql {
  return Prisma.sql`(CASE WHEN ${condition} THEN ${1 + weight}::float8 ELSE 1 END)`;
}

function periodBoost(at: Prisma.Sql, intent: SearchIntent): Prisma.Sql {
  if (!intent.period) return Prisma.sql`1`;
  return boost(Prisma.sql`${at} >= ${intent.period.start} AND ${at} < ${intent.period.end}`, TURN_WEIGHTS.inPeriod);
}

function turnScore(intent: SearchIntent): Prisma.Sql {
  const own = bm25(Prisma.sql`f.content_tsv`, true);
  const speaker = bm25(Prisma.sql`to_tsvector('english', COALESCE(f.speaker, ''))`, false);
  const time = intent.asksWhen ? boost(Prisma.sql`f.content ~* ${STATES_TIME}`, TURN_WEIGHTS.statesTime) : Prisma.sql`1`;
  return Prisma.sql`(${own} + ${TURN_WEIGHTS.speaker}::float8 * ${speaker}) * ${time} * ${periodBoost(Prisma.sql`COALESCE(f.occurred_at, f.created_at)`, intent)}`;
}

function rankedTurns(input: SearchInput, intent: SearchIntent, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES.turn;
  return Prisma.sql`WITH ${queryTerms("turn", input.contextId, intent, tsQuery(input, intent))},
    cand AS (SELECT f.id, f.session_id, f.seq, ${turnScore(intent)} AS s FROM turns f, q
      WHERE ${visibleRows("turn", input, now)} AND f.content_tsv @@ q.tsq ORDER BY s DESC, f.id LIMIT ${CANDIDATES}),
    spread AS (SELECT id, s FROM cand
      UNION ALL
      SELECT f.id, ${TURN_WEIGHTS.neighbour}::float8 * c.s FROM cand c
        JOIN turns f ON f.session_id = c.session_id AND f.seq IN (c.seq - 1, c.seq + 1)
        WHERE ${visibleRows("turn", input, now)}),
    best AS (SELECT id, sum(s) AS s FROM spread GROUP BY id ORDER BY s DESC, id LIMIT ${input.limit})
    SELECT 'turn'::text AS kind, f.id, ${r.text} AS text, best.s::float8 AS raw_score, ${r.link} AS link
    FROM best JOIN turns f ON f.id = best.id ORDER BY best.s DESC, f.id`;
}

function rankedOther(kind: SearchKind, input: SearchInput, intent: SearchIntent, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES[kind];
  const tsv = input.match === "all" && r.whole ? Prisma.sql`to_tsvector('english', ${r.whole})` : r.tsv;
  const isFact = kind === "attribute" || kind === "relation";
  const score = Prisma.sql`${bm25(tsv, kind === "document_node")} * ${isFact ? periodBoost(Prisma.sql`f.valid_from`, intent) : Prisma.sql`1`}`;
  return Prisma.sql`WITH ${queryTerms(kind, input.contextId, intent, tsQuery(input, intent))}
    SELECT ${kind}::text AS kind, f.id, ${r.text} AS text, (${score})::float8 AS raw_score, ${r.link} AS link
    FROM ${r.from}, q WHERE ${visibleRows(kind, input, now)} AND ${tsv} @@ q.tsq
    ORDER BY raw_score DESC, f.id LIMIT ${input.limit}`;
}

/** One statement per kind, so the kinds run in parallel on separate connections and the slowest bounds the latency. */
export function searchStatements(input: SearchInput, now: Date): Prisma.Sql[] {
  const intent = searchIntent(input.query, now);
  return input.kinds.map((kind) => (kind === "turn" ? rankedTurns(input, intent, now) : rankedOther(kind, input, intent, now)));
}
