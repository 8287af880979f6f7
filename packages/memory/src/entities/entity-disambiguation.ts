// Contested names (see entity-matching.ts) can be settled by a disambiguator: in the
// worker, the strong model when one is configured. It is asked BEFORE the commit
// transaction opens, so no model call ever holds row locks, and its answers are
// checkpointed on the commit's work item (by the caller: packages/pipeline owns work items), so a
// re-delivered commit neither pays for the same question twice nor gets a different answer the
// second time.
import { typedCandidate, type DisambiguationDecision } from "@recall/contracts";
import type { Db, Entity, KnowledgeCandidate } from "@recall/db";
import { classifyMatches } from "./entity-matching";
import { findNameMatches, type NameSnapshot } from "./entity-store";
import { identityKey, normaliseType } from "../core/identity";

export interface DisambiguationOption {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  /** A few current facts ("role = CTO"), so the model can tell two Jordans apart. */
  facts: string[];
}

export interface DisambiguationRequest {
  name: string;
  type: string;
  reason: "ambiguous" | "type_incompatible";
  /** The sentence the name was found in, when the candidate has one. */
  quote?: string;
  options: DisambiguationOption[];
}

export type { DisambiguationDecision };

export interface EntityDisambiguator {
  decide(request: DisambiguationRequest): Promise<DisambiguationDecision & { tokensUsed?: number }>;
}

/** A name as a candidate uses it: the identity key and type the resolver will look up. */
export interface NameUse {
  name: string;
  type?: string;
  quote?: string;
}

export function decisionKey(name: string, type: string | undefined): string {
  return `${identityKey(name)}|${normaliseType(type)}`;
}

/** Types named by entity candidates, so an attribute's "Alice" resolves to the person Alice. */
export function declaredTypes(candidates: readonly KnowledgeCandidate[]): Map<string, string> {
  const types = new Map<string, string>();
  for (const c of candidates) {
    const typed = typedCandidate(c);
    if (typed.kind === "entity") types.set(identityKey(typed.payload.name), typed.payload.type);
  }
  return types;
}

/** Every entity name the candidates use, with the type each use states (or the diff's entity candidate gives). */
export function nameUses(candidates: readonly KnowledgeCandidate[]): NameUse[] {
  const declared = declaredTypes(candidates);
  const typed = (name: string, type?: string) => ({ name, type: type ?? declared.get(identityKey(name)) });
  const uses: NameUse[] = [];
  for (const row of candidates) {
    const c = typedCandidate(row);
    if (c.kind === "entity") uses.push(typed(c.payload.name));
    if (c.kind === "attribute") uses.push({ ...typed(c.payload.entity, c.payload.entity_type), quote: c.payload.evidence?.quote });
    if (c.kind === "relation") {
      const { subject, subject_type, object, object_type, evidence } = c.payload;
      uses.push({ ...typed(subject, subject_type), quote: evidence?.quote }, { ...typed(object, object_type), quote: evidence?.quote });
    }
    if (c.kind === "uncertainty" && c.payload.entity) uses.push(typed(c.payload.entity));
  }
  return uses;
}

type Checkpoint = Record<string, DisambiguationDecision>;

/** The commit's checkpoint: what earlier attempts decided, and how to keep what this one decides. */
export interface DisambiguationCheckpoint {
  decided: Readonly<Checkpoint>;
  save(decisions: Checkpoint): Promise<void>;
}

export interface DisambiguationPlan {
  decisions: ReadonlyMap<string, DisambiguationDecision>;
  tokensUsed: number;
  /** Questions the disambiguator could not answer; those names fall back to the safe rule. */
  failures: { name: string; message: string }[];
}

/** Asks the disambiguator about every contested name not already decided for this work item. */
export async function planDisambiguations(
  db: Db,
  target: { contextId: string },
  uses: readonly NameUse[],
  disambiguator: EntityDisambiguator,
  saved?: DisambiguationCheckpoint,
  known?: NameSnapshot,
): Promise<DisambiguationPlan> {
  const checkpoint: Checkpoint = { ...saved?.decided };
  const plan = { tokensUsed: 0, failures: [] as DisambiguationPlan["failures"] };
  let asked = false;
  for (const use of distinctUses(uses)) {
    const key = decisionKey(use.name, use.type);
    if (checkpoint[key]) continue;
    const request = await contestedRequest(db, target.contextId, use, known);
    if (!request) continue;
    const answer = await askSafely(disambiguator, request);
    if ("message" in answer) {
      plan.failures.push({ name: use.name, message: answer.message });
      continue;
    }
    plan.tokensUsed += answer.tokensUsed ?? 0;
    checkpoint[key] = { entityId: answer.entityId, reason: answer.reason };
    asked = true;
  }
  if (asked) await saved?.save(checkpoint);
  return { decisions: new Map(Object.entries(checkpoint)), ...plan };
}

/** One use per name and type, with the first sentence any of its uses was found in. */
function distinctUses(uses: readonly NameUse[]): NameUse[] {
  const byKey = new Map<string, NameUse>();
  for (const use of uses) {
    const key = decisionKey(use.name, use.type);
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, quote: seen.quote ?? use.quote } : use);
  }
  return [...byKey.values()];
}

async function contestedRequest(db: Db, contextId: string, use: NameUse, known?: NameSnapshot): Promise<DisambiguationRequest | undefined> {
  const key = identityKey(use.name);
  const type = normaliseType(use.type);
  const matches = known?.matches(contextId, key) ?? (await findNameMatches(db, contextId, key));
  const outcome = classifyMatches(matches, key, type);
  if (outcome.kind !== "contested") return undefined;
  return { name: use.name, type, reason: outcome.reason, quote: use.quote, options: await optionsFor(db, outcome.matches) };
}

async function optionsFor(db: Db, matches: readonly Entity[]): Promise<DisambiguationOption[]> {
  const attributes = await db.attribute.findMany({
    where: { entityId: { in: matches.map((e) => e.id) }, supersededById: null, retractedAt: null },
    orderBy: { recordedAt: "desc" },
    take: 50,
  });
  return matches.map((e) => ({
    id: e.id,
    name: e.name,
    type: e.type,
    aliases: e.aliases,
    facts: attributes
      .filter((a) => a.entityId === e.id)
      .slice(0, 5)
      .map((a) => `${a.key} = ${a.value}`),
  }));
}

/**
 * A disambiguator that fails (provider down, budget spent) must not block the commit:
 * without an answer the safe rule applies (a new entity, never a false merge).
 */
async function askSafely(
  disambiguator: EntityDisambiguator,
  request: DisambiguationRequest,
): Promise<(DisambiguationDecision & { tokensUsed?: number }) | { message: string }> {
  try {
    const decision = await disambiguator.decide(request);
    const known = decision.entityId === null || request.options.some((o) => o.id === decision.entityId);
    return known ? decision : { message: `answered with an entity that was not offered (${decision.entityId})` };
  } catch (err) {
    return { message: err instanceof Error ? err.message : String(err) };
  }
}
