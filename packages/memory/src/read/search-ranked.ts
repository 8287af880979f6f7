// One full-text statement per kind of text, run side by side on separate connections.
// Each ranks by BM25 (search-bm25.ts) and adds what the kind of text allows:
// - turns: a turn said by a person the query names counts more (a question about Caroline
//   is answered by what Caroline said); the best turns pass a share of their score to the
//   turns one and two before and after them in their session (an answer often only makes
//   sense after the question it answers, and names its topic in neither); a turn gains a
//   share of its session's score (two stages: the session about the topic, then the turn
//   in it); a question asking when favours turns that state a time, a query naming a
//   period favours turns said within it, and one naming a month or year favours turns said
//   in it (the session's date as words of every turn, read at query time);
// - facts: a query naming a period favours values that began (or were observed) in it.
// The weights are in search-weights.ts; they are for kinds of questions, not for any one data set.
import { Prisma } from "@recall/db";
import { bm25Lateral, queryTerms } from "./search-bm25";
import { searchIntent, type SearchIntent } from "./search-intent";
import { TEXT_SOURCES, visibleRows } from "./search-sql";
import type { SearchInput, SearchKind } from "./search-types";
import { rankingOf, type RankingWeights } from "./search-weights";

/** How many of the best matching turns spread their score to neighbours. */
const SPREADING = 50;

/**
 * Words that state a time in English text, as a tsquery over the stored tsvector (no text is
 * parsed per row): relative days and weeks, weekdays, months (not "may", mostly a modal verb),
 * and numbers starting 19 or 20 (years).
 */
const STATES_TIME =
  "yesterday | today | tonight | tomorrow | ago | last | next | since | recently | weekend | monday | tuesday | wednesday | " +
  "thursday | friday | saturday | sunday | january | february | march | april | june | july | august | september | " +
  "october | november | december | 19:* | 20:*";

/** `any` ORs the query's own lexemes (stemmed, stop words dropped); `all` is websearch_to_tsquery's syntax. */
function tsQuery(input: SearchInput, intent: SearchIntent): Prisma.Sql {
  if (input.match === "all") return Prisma.sql`websearch_to_tsquery('english', ${input.query})`;
  return Prisma.sql`recall_any_tsquery(${intent.text})`;
}

function boost(condition: Prisma.Sql, weight: number): Prisma.Sql {
  return Prisma.sql`(CASE WHEN ${condition} THEN ${1 + weight}::float8 ELSE 1 END)`;
}

function periodBoost(at: Prisma.Sql, intent: SearchIntent, w: RankingWeights): Prisma.Sql {
  if (!intent.period) return Prisma.sql`1`;
  return boost(Prisma.sql`${at} >= ${intent.period.start} AND ${at} < ${intent.period.end}`, w.inPeriod);
}

/**
 * A turn said in a month or year the query names by name or number ("in June", "in 2023"),
 * whatever the year or month: the session's date as words of every turn, read at query time.
 */
function calendarBoost(intent: SearchIntent, w: RankingWeights): Prisma.Sql {
  const { months, years } = intent.calendar;
  if (months.length === 0 && years.length === 0) return Prisma.sql`1`;
  const month =
    months.length > 0 ? Prisma.sql`extract(month FROM m.said AT TIME ZONE 'UTC')::int = ANY(${months}::int[])` : Prisma.sql`true`;
  const year = years.length > 0 ? Prisma.sql`extract(year FROM m.said AT TIME ZONE 'UTC')::int = ANY(${years}::int[])` : Prisma.sql`true`;
  return boost(Prisma.sql`${month} AND ${year}`, w.calendar);
}

/** How many of the best first-pass turns feed back their words, and how many words they add. */
const FEEDBACK_TURNS = 5;
const FEEDBACK_TERMS = 10;

/** The speakers' bonus is computed once per distinct speaker among the matches, not per turn. */
function rankedTurns(input: SearchInput, intent: SearchIntent, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES.turn;
  const w = rankingOf(input.ranking);
  // The time words' tsquery is a scalar subquery so that it is built once (an InitPlan), not per candidate row.
  const statesTime = Prisma.sql`m.tsv @@ (SELECT to_tsquery('english', ${STATES_TIME}))`;
  const time = intent.asksWhen ? boost(statesTime, w.statesTime) : Prisma.sql`1`;
  // What multiplies a turn's lexical score: who said it (a person the query names), and when.
  const multiplier = Prisma.sql`(1 + ${w.namedSpeaker}::float8 * (sp.bonus IS NOT NULL)::int)
    * ${time} * ${periodBoost(Prisma.sql`m.said`, intent, w)} * ${calendarBoost(intent, w)}`;
  const lexical = Prisma.sql`(bm.s + ${w.speaker}::float8 * COALESCE(sp.bonus, 0))`;
  const matched = (
    tsq: Prisma.Sql,
  ) => Prisma.sql`SELECT f.id, f.session_id, f.seq, f.speaker, COALESCE(f.occurred_at, f.created_at) AS said,
      f.content_tsv AS tsv FROM turns f, q WHERE ${visibleRows("turn", input, now)} AND ${tsq}`;
  const candidates =
    w.feedback > 0
      ? Prisma.sql`${feedbackStage(input, w.feedback, lexical, multiplier, matched)},
    cand AS (SELECT m.id, m.session_id, m.seq, (${lexical} + bx.s) * ${multiplier} AS s
      FROM (SELECT * FROM m UNION ALL SELECT * FROM mx) m CROSS JOIN q CROSS JOIN xq ${bm25Lateral(true)}
        ${bm25Lateral(true, { terms: "xq", weights: "xw", as: "bx" })} LEFT JOIN sp ON sp.speaker = m.speaker)`
      : Prisma.sql`cand AS (SELECT m.id, m.session_id, m.seq, ${lexical} * ${multiplier} AS s
      FROM m CROSS JOIN q ${bm25Lateral(true)} LEFT JOIN sp ON sp.speaker = m.speaker)`;
  return Prisma.sql`WITH ${queryTerms("turn", input.contextId, intent, tsQuery(input, intent))},
    m AS (${matched(Prisma.sql`f.content_tsv @@ q.tsq`)}),
    sp AS MATERIALIZED (SELECT s.speaker, sum(w.idf) AS bonus FROM (SELECT DISTINCT speaker FROM m WHERE speaker IS NOT NULL) s
      CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', s.speaker))) AS l JOIN w ON w.term = l GROUP BY s.speaker),
    ${candidates},
    spread AS (SELECT id, session_id, s FROM cand
      UNION ALL
      SELECT f.id, f.session_id, nb.share * c.s FROM (SELECT * FROM cand ORDER BY s DESC, id LIMIT ${SPREADING}) c
        CROSS JOIN LATERAL (VALUES (c.seq - 1, ${w.neighbour}::float8), (c.seq + 1, ${w.neighbour}::float8),
          (c.seq - 2, ${w.neighbour2}::float8), (c.seq + 2, ${w.neighbour2}::float8)) AS nb(seq, share)
        JOIN turns f ON f.session_id = c.session_id AND f.seq = nb.seq
        WHERE ${visibleRows("turn", input, now)}),
    ${sessionStage(w)},
    best AS (SELECT t.id, t.s * (1 + ${w.session}::float8 * COALESCE(ss.share, 0)) AS s
      FROM (SELECT id, session_id, sum(s) AS s FROM spread GROUP BY id, session_id) t LEFT JOIN ss ON ss.session_id = t.session_id
      ORDER BY s DESC, t.id LIMIT ${input.limit})
    SELECT 'turn'::text AS kind, f.id, ${r.text} AS text, best.s::float8 AS raw_score, ${r.link} AS link
    FROM best JOIN turns f ON f.id = best.id ORDER BY best.s DESC, f.id`;
}

/**
 * Pseudo-relevance feedback (RM3, as in Lavrenko and Croft's relevance models): the best first-pass turns are
 * taken as relevant, and the words they share that the query lacks are added to it. A word's relevance is its
 * share of each such turn (tf / length) times the turn's score as a share of the best one, summed; the
 * FEEDBACK_TERMS most relevant times their idf are kept, a word of only one turn never (it finds nothing else).
 * Each added word scores by BM25 with its idf × its relevance over the best one's × `weight`, so the query's own
 * words keep the larger part. `mx` are the turns only an added word finds; `xq` and `xw` their terms and weights.
 */
function feedbackStage(
  input: SearchInput,
  weight: number,
  lexical: Prisma.Sql,
  multiplier: Prisma.Sql,
  matched: (tsq: Prisma.Sql) => Prisma.Sql,
): Prisma.Sql {
  return Prisma.sql`fbturns AS (SELECT m.tsv, ${lexical} * ${multiplier} AS s
      FROM m CROSS JOIN q ${bm25Lateral(true)} LEFT JOIN sp ON sp.speaker = m.speaker ORDER BY s DESC, m.id LIMIT ${FEEDBACK_TURNS}),
    fb AS (SELECT u.lexeme AS term,
        sum(GREATEST(cardinality(u.positions), 1)::float8 / GREATEST(length(fbturns.tsv), 1) * fbturns.s / NULLIF(top.s, 0)) AS rel
      FROM fbturns CROSS JOIN (SELECT max(s) AS s FROM fbturns) top CROSS JOIN LATERAL unnest(fbturns.tsv) AS u, q
      WHERE u.lexeme <> ALL(q.terms) GROUP BY u.lexeme),
    n AS (SELECT COALESCE(sum(docs), 0)::float8 AS docs FROM search_doc_stats WHERE context_id = ${input.contextId}::uuid AND kind = 'turn'),
    x AS MATERIALIZED (SELECT fb.term, ln(1 + (GREATEST(n.docs - st.docs, 0) + 0.5) / (st.docs + 0.5)) AS idf, fb.rel
      FROM fb CROSS JOIN n JOIN search_term_stats st ON st.context_id = ${input.contextId}::uuid AND st.kind = 'turn' AND st.lexeme = fb.term
      WHERE st.docs > 1 AND fb.rel > 0
      ORDER BY fb.rel * ln(1 + (GREATEST(n.docs - st.docs, 0) + 0.5) / (st.docs + 0.5)) DESC, fb.term LIMIT ${FEEDBACK_TERMS}),
    xw AS (SELECT term, idf * rel / NULLIF(max(rel) OVER (), 0) * ${weight}::float8 AS idf FROM x),
    xq AS (SELECT COALESCE(string_agg(quote_literal(term), ' | '), '')::tsquery AS tsq, COALESCE(array_agg(term), '{}') AS terms FROM x),
    mx AS (${matched(Prisma.sql`f.content_tsv @@ (SELECT tsq FROM xq) AND NOT f.content_tsv @@ q.tsq`)})`;
}

/**
 * The first of two stages: sessions ranked by the summed scores of their matching turns, as a
 * share of the best session's (`ss`: session_id, share); a turn gains `session` × its session's share.
 */
function sessionStage(w: RankingWeights): Prisma.Sql {
  if (w.session === 0) return Prisma.sql`ss AS (SELECT NULL::uuid AS session_id, 0::float8 AS share WHERE false)`;
  return Prisma.sql`ss AS (SELECT session_id, sum(s) / NULLIF(max(sum(s)) OVER (), 0) AS share FROM cand GROUP BY session_id)`;
}

function rankedOther(kind: SearchKind, input: SearchInput, intent: SearchIntent, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES[kind];
  const tsv = input.match === "all" && r.whole ? Prisma.sql`to_tsvector('english', ${r.whole})` : r.tsv;
  const isFact = kind === "attribute" || kind === "relation";
  const period = isFact ? periodBoost(Prisma.sql`f.valid_from`, intent, rankingOf(input.ranking)) : Prisma.sql`1`;
  return Prisma.sql`WITH ${queryTerms(kind, input.contextId, intent, tsQuery(input, intent))},
    m AS (SELECT f.id, ${r.text} AS text, ${r.link} AS link, ${period} AS boost, ${tsv} AS tsv
      FROM ${r.from}, q WHERE ${visibleRows(kind, input, now)} AND ${tsv} @@ q.tsq)
    SELECT ${kind}::text AS kind, m.id, m.text, (bm.s * m.boost)::float8 AS raw_score, m.link
    FROM m CROSS JOIN q ${bm25Lateral(kind === "document_node")} ORDER BY raw_score DESC, m.id LIMIT ${input.limit}`;
}

/**
 * Two statements, run side by side on separate connections: the turns (the most work) and
 * every other kind as one UNION ALL of parenthesised statements (each keeps its own CTEs),
 * which spares a round trip and a plan-and-execute cycle per kind.
 */
export function searchStatements(input: SearchInput, now: Date): Prisma.Sql[] {
  const intent = searchIntent(input.query, now);
  const others = input.kinds.filter((kind) => kind !== "turn").map((kind) => Prisma.sql`(${rankedOther(kind, input, intent, now)})`);
  return [
    ...(input.kinds.includes("turn") ? [rankedTurns(input, intent, now)] : []),
    ...(others.length > 0 ? [Prisma.join(others, " UNION ALL ")] : []),
  ];
}
