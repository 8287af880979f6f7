// POST /context: what an agent pastes into its system prompt, in one call and within a token
// budget. Built on the other readers: the active instructions (directive-reader.ts), /query's
// ranking for the excerpts and the matching facts (search-reader.ts), the facts current at
// `as_of` of the entities the message names or the best excerpts were read about (fact-query.ts),
// and the open uncertainties about those entities. context-pack.ts renders and packs them. A message that speaks of
// its reader ("me", "my") names the scope's person (scope-person.ts).
// Excerpts of a retracted source are left out (a retraction keeps the raw text for the audit
// trail, but the caller asked for it not to be read); an erased source's rows no longer exist.
// Three rounds of statements, each round's side by side: what /query and the directives answer,
// then the excerpts' sources and what was read from them, then the chosen entities' facts.
import { Prisma, type DbOrTx } from "@recall/db";
import {
  packContext,
  type ContextCandidates,
  type ContextPack,
  type ExcerptCandidate,
  type FactCandidate,
  type FactSource,
} from "./context-pack";
import { activeInstructions, readUnknowns } from "./directive-reader";
import { readFacts } from "./fact-query";
import type { ReaderScope } from "./read-types";
import { scopePerson } from "./scope-person";
import { searchMemory } from "./search/search-reader";
import type { SearchKind, SearchResult } from "./search/search-types";
import type { VectorRetriever } from "./search/vector-retriever";

/** The body's bounds (the route validates against them): a budget in o200k tokens, and the message's length. */
export const CONTEXT_LIMITS = { defaultTokens: 1_500, maxTokens: 16_000, messageChars: 8_000 };

export type { ContextPack } from "./context-pack";

export interface ContextInput extends ReaderScope {
  message: string;
  maxTokens: number;
  /** Facts true at this instant, instructions and uncertainties as they stood then, and no later excerpts; default now. */
  asOf?: Date;
  /** The conversation the agent is in: it holds those turns already, so they are not repeated as excerpts. */
  sessionId?: string;
}

/** How many of /query's best hits are weighed; the budget decides how many are packed. */
const CANDIDATES = 40;
/** The excerpts whose entities' facts are drawn in (the best few: lower ones are mostly noise). */
const ABOUT_EXCERPTS = 8;
/** Facts weighed at most; an entity set this large is a different problem. */
const MAX_FACTS = 400;
/** See relevance(); on the bench:recall conversations 1 to 8 packed the same evidence, 60 (fusion's own) far less. */
const RANK_DECAY = 2;
/** Relevance of a fact, as shares of the best excerpt's score (see factScores). */
const FACT_WEIGHTS = { namedInMessage: 1, readFromExcerpt: 0.5, aboutExcerpt: 0.25 };
const SEARCHED: SearchKind[] = ["turn", "document_node", "attribute", "relation"];

interface SourceRow {
  id: string;
  kind: "turn" | "document_node";
  session_id: string | null;
  seq: number | null;
  speaker: string | null;
  document_id: string | null;
  said_at: Date;
}

interface MentionRow {
  assertion_id: string;
  source_id: string;
  entity_id: string;
}

export async function readContext(db: DbOrTx, input: ContextInput, vector?: VectorRetriever): Promise<ContextPack> {
  const reader = { contextId: input.contextId, scope: input.scope };
  const at = input.asOf ?? new Date();
  const search = { ...reader, query: input.message, limit: CANDIDATES, kinds: SEARCHED, match: "any" as const, now: at };
  const [{ results }, instructions, unknowns, namedByName, me] = await Promise.all([
    searchMemory(db, search, vector),
    activeInstructions(db, reader, input.asOf),
    readUnknowns(db, reader, { includeResolved: false, at: input.asOf }),
    entitiesNamedIn(db, input.contextId, input.message),
    scopePerson(db, reader, input.message),
  ]);
  // "me" names the scope's person as surely as their name would.
  const named = me && !namedByName.includes(me) ? [...namedByName, me] : namedByName;
  const ranked = results.map((r, position) => ({ ...r, score: relevance(position) }));
  const [excerpts, readFrom] = await Promise.all([liveExcerpts(db, input, ranked), entitiesReadFrom(db, input.contextId, ranked)]);
  const best = new Set(excerpts.slice(0, ABOUT_EXCERPTS).map((e) => e.id));
  const mentions = readFrom.filter((m) => best.has(m.source_id));
  const factHits = new Map(ranked.filter((r) => r.link.fact_id).map((r) => [r.link.fact_id!, r]));
  const entityIds = [...new Set([...named, ...mentions.map((m) => m.entity_id), ...[...factHits.values()].map((r) => r.link.entity_id!)])];
  // At most MAX_FACTS of the entities' facts: those /query matched and those read from the best excerpts first, then
  // the newest (an entity known by thousands of facts still shows the ones that answer).
  const prefer = { ids: [...factHits.keys()], assertionIds: mentions.map((m) => m.assertion_id) };
  const facts =
    entityIds.length === 0 ? [] : await readFacts(db, { ...reader, validAt: at, subjectIds: entityIds, limit: MAX_FACTS, prefer });
  const sources = await sourcesOf(db, input.contextId, [...new Set(facts.map((f) => f.assertion_id))]);
  const hits = await hitsOnShown(db, facts, factHits);
  const scored = factScores(facts, { factHits: hits, named: new Set(named), mentions, excerpts }).map((f) => {
    const source = sources.get(f.fact.assertion_id);
    const sourceId = source?.turn_id ?? source?.node_id;
    return sourceId ? { ...f, sourceId } : f;
  });
  const touched = new Set(scored.map((f) => f.entityId));
  const candidates: ContextCandidates = {
    instructions,
    facts: scored,
    uncertainties: unknowns.filter((u) => u.entity_id && touched.has(u.entity_id)),
    excerpts,
  };
  const pack = packContext(candidates, input.maxTokens);
  const cited = pack.sections.facts.map((f) => ({ ...f, source: sources.get(f.assertion_id) ?? f.source }));
  return { ...pack, sections: { ...pack.sections, facts: cited } };
}

/**
 * A hit's relevance from its position in /query's ranking. Fusion scores (1 / (60 + rank)) are nearly flat over
 * the first few dozen ranks, so divided by tokens they would pack short, low-ranked turns ("Wow, congrats!") before
 * the long ones that answer; a steeper decay keeps the order /query chose and lets length break near ties.
 */
function relevance(position: number): number {
  return 1 / (RANK_DECAY + position);
}

/** Entities whose whole name (or an alias) occurs as a phrase in the message, read by the same text search configuration. */
async function entitiesNamedIn(db: DbOrTx, contextId: string, message: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT e.id FROM entities e, (SELECT to_tsvector('english', ${message}) AS v) m
    WHERE e.context_id = ${contextId}::uuid AND e.retracted_at IS NULL AND e.name_tsv <> ''::tsvector
      AND (m.v @@ phraseto_tsquery('english', e.name)
        OR EXISTS (SELECT 1 FROM unnest(e.aliases) a WHERE to_tsvector('english', a) <> ''::tsvector AND m.v @@ phraseto_tsquery('english', a)))`);
  return rows.map((r) => r.id);
}

/** The turn and document node hits, best first, without retracted sources, the caller's own session, or turns said after as_of. */
async function liveExcerpts(db: DbOrTx, input: ContextInput, results: SearchResult[]): Promise<ExcerptCandidate[]> {
  const hits = results.filter((r) => r.kind === "turn" || r.kind === "document_node");
  if (hits.length === 0) return [];
  const ids = (kind: SearchKind) => hits.filter((h) => h.kind === kind).map((h) => h.id);
  const rows = await db.$queryRaw<SourceRow[]>(Prisma.sql`
    SELECT 'turn' AS kind, t.id, t.session_id, t.seq, COALESCE(t.speaker, t.role) AS speaker, NULL::uuid AS document_id, COALESCE(t.occurred_at, t.created_at) AS said_at
    FROM turns t WHERE t.context_id = ${input.contextId}::uuid AND t.id = ANY(${ids("turn")}::uuid[]) AND ${notRetracted("turn", "t.id")}
    UNION ALL
    SELECT 'document_node', n.id, NULL, NULL, NULL, d.id, d.created_at
    FROM document_nodes n JOIN documents d ON d.id = n.document_id
    WHERE d.context_id = ${input.contextId}::uuid AND n.id = ANY(${ids("document_node")}::uuid[]) AND ${notRetracted("document", "d.id")}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return hits.flatMap((hit) => {
    const row = byId.get(hit.id);
    if (!row || (input.sessionId && row.session_id === input.sessionId) || (input.asOf && row.said_at > input.asOf)) return [];
    return [{ ...row, text: hit.text, score: hit.score }];
  });
}

function notRetracted(sourceType: "turn" | "document", id: string): Prisma.Sql {
  return Prisma.sql`NOT EXISTS (SELECT 1 FROM retractions r WHERE r.context_id = ${Prisma.raw(id.split(".")[0]!)}.context_id
    AND r.source_id = ${Prisma.raw(id)} AND r.source_type = ${sourceType})`;
}

/** The subjects and objects of what was read from these hits' turns and document nodes (live assertions only). */
async function entitiesReadFrom(db: DbOrTx, contextId: string, results: SearchResult[]): Promise<MentionRow[]> {
  const ids = (kind: SearchKind) => results.filter((r) => r.kind === kind).map((r) => r.id);
  if (ids("turn").length + ids("document_node").length === 0) return [];
  // Assertions are indexed by turn and by document, not by node: a node's assertions are found through its document.
  return db.$queryRaw<MentionRow[]>(Prisma.sql`
    SELECT a.id AS assertion_id, COALESCE(a.turn_id, a.document_node_id) AS source_id, x.entity_id
    FROM assertions a CROSS JOIN LATERAL (VALUES (a.subject_entity_id), (a.object_entity_id)) AS x(entity_id)
    WHERE a.context_id = ${contextId}::uuid AND a.retracted_at IS NULL AND x.entity_id IS NOT NULL
      AND (a.turn_id = ANY(${ids("turn")}::uuid[])
        OR (a.document_id IN (SELECT n.document_id FROM document_nodes n WHERE n.id = ANY(${ids("document_node")}::uuid[]))
          AND a.document_node_id = ANY(${ids("document_node")}::uuid[])))`);
}

interface Relevance {
  factHits: Map<string, SearchResult>;
  named: Set<string>;
  mentions: MentionRow[];
  excerpts: ExcerptCandidate[];
}

/**
 * A fact's relevance, on the excerpts' scale: its own /query score when it matched the message,
 * plus shares of the best excerpt's score when its entity is named in the message, and of an
 * excerpt's score when the excerpt speaks about its entity (more when the fact was read from it).
 */
function factScores(facts: Awaited<ReturnType<typeof readFacts>>, r: Relevance): FactCandidate[] {
  // With nothing matched ("What do you know about me?"), a named entity's facts are scored as a best hit would be.
  const best = r.excerpts[0]?.score ?? (Math.max(0, ...[...r.factHits.values()].map((h) => h.score)) || relevance(0));
  const excerptScore = new Map(r.excerpts.map((e) => [e.id, e.score]));
  const about = new Map<string, number>();
  const readFrom = new Map<string, number>();
  for (const m of r.mentions) {
    const score = excerptScore.get(m.source_id) ?? 0;
    about.set(m.entity_id, Math.max(about.get(m.entity_id) ?? 0, score));
    readFrom.set(m.assertion_id, Math.max(readFrom.get(m.assertion_id) ?? 0, score));
  }
  const subjectOf = (fact: (typeof facts)[number]) => (fact.kind === "attribute" ? fact.entity.id : fact.subject.id);
  const known = new Map<string, number>();
  for (const fact of facts) known.set(subjectOf(fact), (known.get(subjectOf(fact)) ?? 0) + 1);
  return facts.map((fact) => {
    const entityId = subjectOf(fact);
    // What makes an entity relevant is shared among its facts: a person known by 300 facts does not make each as
    // relevant as the best excerpt, and packed whole they would crowd out the turns that answer.
    const share = 1 / known.get(entityId)!;
    const score =
      (r.factHits.get(fact.id)?.score ?? 0) +
      (r.named.has(entityId) ? FACT_WEIGHTS.namedInMessage * best * share : 0) +
      FACT_WEIGHTS.aboutExcerpt * (about.get(entityId) ?? 0) * share +
      FACT_WEIGHTS.readFromExcerpt * (readFrom.get(fact.assertion_id) ?? 0);
    return { fact, entityId, score };
  });
}

/**
 * A search hit on a restatement the reader is not shown (the same value of the same entity and key
 * written again: fact-query.ts shows the newest) counts for the one shown. Otherwise which of the
 * equal restatements the search happened to return would decide whether the fact is packed at all.
 */
async function hitsOnShown(db: DbOrTx, facts: Awaited<ReturnType<typeof readFacts>>, factHits: Map<string, SearchResult>) {
  const shown = new Set(facts.map((f) => f.id));
  const hidden = [...factHits.keys()].filter((id) => !shown.has(id));
  if (hidden.length === 0) return factHits;
  const rows = await db.$queryRaw<{ id: string; slot: string }[]>(Prisma.sql`
    SELECT id, concat_ws('|', entity_id, key, value) AS slot FROM attributes WHERE id = ANY(${hidden}::uuid[])
    UNION ALL SELECT id, concat_ws('|', subject_id, predicate, object_id) FROM relations WHERE id = ANY(${hidden}::uuid[])`);
  const shownIn = new Map(
    facts.map((f) => [
      f.kind === "attribute" ? `${f.entity.id}|${f.key}|${f.value}` : `${f.subject.id}|${f.predicate}|${f.object.id}`,
      f.id,
    ]),
  );
  const credited = new Map(factHits);
  for (const row of rows) {
    const target = shownIn.get(row.slot);
    const hit = factHits.get(row.id)!;
    if (target && (credited.get(target)?.score ?? 0) < hit.score) credited.set(target, hit);
  }
  return credited;
}

/** Where the facts weighed were read from, by assertion: the turn, or the document and its node, or the direct write. */
async function sourcesOf(db: DbOrTx, contextId: string, assertionIds: string[]): Promise<Map<string, FactSource>> {
  if (assertionIds.length === 0) return new Map();
  const rows = await db.$queryRaw<({ id: string } & FactSource)[]>(Prisma.sql`
    SELECT a.id, a.turn_id, a.document_id, a.document_node_id AS node_id, a.fact_write_id
    FROM assertions a WHERE a.context_id = ${contextId}::uuid AND a.id = ANY(${assertionIds}::uuid[])`);
  return new Map(rows.map(({ id, ...source }) => [id, source]));
}
