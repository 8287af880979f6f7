// POST /context: what an agent pastes into its system prompt, in one call and within a token
// budget. Built on the other readers: the active instructions (directive-reader.ts), /query's
// ranking for the excerpts and the matching facts (search-reader.ts), the facts current at
// `as_of` of the entities the message names or the best excerpts were read about (fact-query.ts),
// and the open uncertainties about those entities. context-pack.ts renders and packs them.
// Excerpts of a retracted source are left out (a retraction keeps the raw text for the audit
// trail, but the caller asked for it not to be read); an erased source's rows no longer exist.
import { Prisma, type DbOrTx } from "@recall/db";
import { packContext, type ContextCandidates, type ContextPack, type ExcerptCandidate, type FactCandidate } from "./context-pack";
import { activeInstructions, readUnknowns } from "./directive-reader";
import { readFacts } from "./fact-query";
import type { ReaderScope } from "./read-types";
import { searchMemory } from "./search-reader";
import type { SearchKind, SearchResult } from "./search-types";
import type { VectorRetriever } from "./vector-retriever";

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
/** The excerpts whose facts' entities are drawn in (the best few: lower ones are mostly noise). */
const ABOUT_EXCERPTS = 8;
/** Facts weighed at most; an entity set this large is a different problem. */
const MAX_FACTS = 400;
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
  const [{ results }, instructions, unknowns, named] = await Promise.all([
    searchMemory(db, search, vector),
    activeInstructions(db, reader, input.asOf),
    readUnknowns(db, reader, { includeResolved: false, at: input.asOf }),
    entitiesNamedIn(db, input.contextId, input.message),
  ]);
  const excerpts = await liveExcerpts(db, input, results);
  const mentions = await entitiesReadFrom(db, input.contextId, excerpts.slice(0, ABOUT_EXCERPTS));
  const factHits = new Map(results.filter((r) => r.link.fact_id).map((r) => [r.link.fact_id!, r]));
  const entityIds = new Set([...named, ...mentions.map((m) => m.entity_id), ...[...factHits.values()].map((r) => r.link.entity_id!)]);
  const facts = entityIds.size === 0 ? [] : await readFacts(db, { ...reader, validAt: at, subjectIds: [...entityIds], limit: MAX_FACTS });
  const scored = factScores(facts, { factHits, named: new Set(named), mentions, excerpts });
  const touched = new Set(scored.map((f) => f.entityId));
  const candidates: ContextCandidates = {
    instructions,
    facts: scored,
    uncertainties: unknowns.filter((u) => u.entity_id && touched.has(u.entity_id)),
    excerpts,
  };
  const pack = packContext(candidates, input.maxTokens);
  return { ...pack, sections: { ...pack.sections, facts: await withSources(db, pack.sections.facts) } };
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
    SELECT 'turn' AS kind, t.id, t.session_id, t.seq, t.speaker, NULL::uuid AS document_id, COALESCE(t.occurred_at, t.created_at) AS said_at
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

/** The subjects and objects of what was read from these excerpts (live assertions only). */
async function entitiesReadFrom(db: DbOrTx, contextId: string, excerpts: ExcerptCandidate[]): Promise<MentionRow[]> {
  if (excerpts.length === 0) return [];
  const ids = excerpts.map((e) => e.id);
  return db.$queryRaw<MentionRow[]>(Prisma.sql`
    SELECT a.id AS assertion_id, COALESCE(a.turn_id, a.document_node_id) AS source_id, x.entity_id
    FROM assertions a CROSS JOIN LATERAL (VALUES (a.subject_entity_id), (a.object_entity_id)) AS x(entity_id)
    WHERE a.context_id = ${contextId}::uuid AND a.retracted_at IS NULL AND x.entity_id IS NOT NULL
      AND (a.turn_id = ANY(${ids}::uuid[]) OR a.document_node_id = ANY(${ids}::uuid[]))`);
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
  const best = r.excerpts[0]?.score ?? Math.max(0, ...[...r.factHits.values()].map((h) => h.score));
  const excerptScore = new Map(r.excerpts.map((e) => [e.id, e.score]));
  const about = new Map<string, number>();
  const readFrom = new Map<string, number>();
  for (const m of r.mentions) {
    const score = excerptScore.get(m.source_id) ?? 0;
    about.set(m.entity_id, Math.max(about.get(m.entity_id) ?? 0, score));
    readFrom.set(m.assertion_id, Math.max(readFrom.get(m.assertion_id) ?? 0, score));
  }
  return facts.map((fact) => {
    const entityId = fact.kind === "attribute" ? fact.entity.id : fact.subject.id;
    const score =
      (r.factHits.get(fact.id)?.score ?? 0) +
      (r.named.has(entityId) ? FACT_WEIGHTS.namedInMessage * best : 0) +
      FACT_WEIGHTS.aboutExcerpt * (about.get(entityId) ?? 0) +
      FACT_WEIGHTS.readFromExcerpt * (readFrom.get(fact.assertion_id) ?? 0);
    return { fact, entityId, score };
  });
}

/** Where each packed fact was read from: the turn, or the document and its node, or the direct write. */
async function withSources(db: DbOrTx, facts: ContextPack["sections"]["facts"]): Promise<ContextPack["sections"]["facts"]> {
  if (facts.length === 0) return facts;
  const rows = await db.$queryRaw<
    { id: string; turn_id: string | null; document_id: string | null; node_id: string | null; fact_write_id: string | null }[]
  >(
    Prisma.sql`SELECT a.id, a.turn_id, a.document_id, a.document_node_id AS node_id, a.fact_write_id
      FROM assertions a WHERE a.id = ANY(${facts.map((f) => f.assertion_id)}::uuid[])`,
  );
  const byId = new Map(rows.map(({ id, ...source }) => [id, source]));
  return facts.map((f) => ({ ...f, source: byId.get(f.assertion_id) ?? f.source }));
}
