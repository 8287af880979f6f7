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

/** The speakers' bonus is computed once per distinct speaker among the matches, not per turn. */
function rankedTurns(input: SearchInput, intent: SearchIntent, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES.turn;
  const w = rankingOf(input.ranking);
  // The time words' tsquery is a scalar subquery so that it is built once (an InitPlan), not per candidate row.
  const statesTime = Prisma.sql`m.tsv @@ (SELECT to_tsquery('english', ${STATES_TIME}))`;
  // A turn whose fact was dated apart from the day it was said ("last year", "three weeks ago") states a time too.
  const time = intent.asksWhen ? boost(Prisma.sql`(${statesTime} OR COALESCE(fk.dated, false))`, w.statesTime) : Prisma.sql`1`;
  return Prisma.sql`WITH ${queryTerms("turn", input.contextId, intent, tsQuery(input, intent))},
    ${factKeys(input, now, w)},
    m AS (SELECT f.id, f.session_id, f.seq, f.speaker, COALESCE(f.occurred_at, f.created_at) AS said, f.content_tsv AS tsv
      FROM turns f, q WHERE ${visibleRows("turn", input, now)} AND f.content_tsv @@ q.tsq
      UNION ALL
      SELECT f.id, f.session_id, f.seq, f.speaker, COALESCE(f.occurred_at, f.created_at), f.content_tsv
      FROM fk JOIN turns f ON f.id = fk.id, q WHERE ${visibleRows("turn", input, now)} AND NOT (f.content_tsv @@ q.tsq)),
    sp AS MATERIALIZED (SELECT s.speaker, sum(w.idf) AS bonus FROM (SELECT DISTINCT speaker FROM m WHERE speaker IS NOT NULL) s
      CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', s.speaker))) AS l JOIN w ON w.term = l GROUP BY s.speaker),
    cand AS (SELECT m.id, m.session_id, m.seq,
        (bm.s + ${w.speaker}::float8 * COALESCE(sp.bonus, 0) + ${w.factKey}::float8 * COALESCE(fk.s, 0))
          * (1 + ${w.namedSpeaker}::float8 * (sp.bonus IS NOT NULL)::int)
          * ${time} * ${periodBoost(Prisma.sql`m.said`, intent, w)} * ${calendarBoost(intent, w)} AS s
      FROM m CROSS JOIN q ${bm25Lateral(true)} LEFT JOIN sp ON sp.speaker = m.speaker LEFT JOIN fk ON fk.id = m.id),
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
 * `fk` (id, s, dated): turns with the summed BM25 score of the current facts read from them that match the query
 * (their entities' names, key and value or predicate), scored like the fact lists (no length normalisation), and
 * whether one of those facts began on another day than the turn was said (its `valid_from` read from a time the turn
 * states). Empty when `factKey` is 0, so a ranking without it pays nothing. Facts the rules read are left out: the
 * rules read a turn's own words back (a name, a role as said), so they would count the turn's matching words twice;
 * with no model configured the ranking is what it was before fact keys (bench:recall's no-model figures).
 */
function factKeys(input: SearchInput, now: Date, w: RankingWeights): Prisma.Sql {
  if (w.factKey === 0) return Prisma.sql`fk AS (SELECT NULL::uuid AS id, 0::float8 AS s, false AS dated WHERE false)`;
  const matching = (kind: "attribute" | "relation") => {
    const r = TEXT_SOURCES[kind];
    return Prisma.sql`SELECT m.turn_id, m.valid_from, bm.s FROM (SELECT a.turn_id, f.valid_from, ${r.tsv} AS tsv FROM ${r.from}, q
        WHERE ${visibleRows(kind, input, now)} AND a.turn_id IS NOT NULL AND a.stage <> 'heuristic' AND ${r.tsv} @@ q.tsq) m CROSS JOIN q ${bm25Lateral(false)}`;
  };
  const dated = Prisma.sql`date_trunc('day', x.valid_from) <> date_trunc('day', COALESCE(t.occurred_at, t.created_at))`;
  return Prisma.sql`fk AS MATERIALIZED (SELECT x.turn_id AS id, sum(x.s) AS s, bool_or(${dated}) AS dated
    FROM (${matching("attribute")} UNION ALL ${matching("relation")}) x JOIN turns t ON t.id = x.turn_id GROUP BY x.turn_id)`;
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
