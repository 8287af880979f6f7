// Writes one validated candidate inside the commit transaction: entities through the
// resolver, then the assertion (the evidence layer, always: source, span, quote,
// confidence, stage, model), then the attribute or relation unless significance is
// `skip`; instructions and uncertainties with their source and span. Entities go through
// an EntityStore and rows through CommitRows: statement by statement for a commit alone,
// buffered for the commits of a group written together (entity-store.ts, commit-rows.ts).
import {
  typedCandidate,
  type AttributeCandidate,
  type EntityCandidate,
  type InstructionCandidate,
  type RelationCandidate,
  type UncertaintyCandidate,
} from "@recall/contracts";
import type { Entity, ExtractionStage, KnowledgeCandidate } from "@recall/db";
import type { CommitSummary, StoredSource } from "./commit";
import type { CommitRows } from "./commit-rows";
import type { DisambiguationDecision } from "../entities/entity-disambiguation";
import { EntityResolver, type EntityNameRef } from "../entities/entity-resolver";
import type { EntityStore } from "../entities/entity-store";
import { identityKey } from "../core/identity";

type Claim = { subjectEntityId: string; predicate: string; objectEntityId?: string; objectLiteral?: string };

export class CandidateWriter {
  private readonly resolver: EntityResolver;

  constructor(
    private readonly rows: CommitRows,
    entities: EntityStore,
    private readonly source: StoredSource,
    private readonly summary: CommitSummary,
    private readonly types: ReadonlyMap<string, string>,
    decisions: ReadonlyMap<string, DisambiguationDecision>,
  ) {
    this.resolver = new EntityResolver(entities, source, decisions);
  }

  async write(candidate: KnowledgeCandidate): Promise<void> {
    const typed = typedCandidate(candidate);
    switch (typed.kind) {
      case "entity":
        return this.entity(candidate, typed.payload);
      case "attribute":
        return this.attribute(candidate, typed.payload);
      case "relation":
        return this.relation(candidate, typed.payload);
      case "instruction":
        return this.instruction(candidate, typed.payload);
      case "uncertainty":
        return this.uncertainty(candidate, typed.payload);
      case "revocation":
        // Revocations change existing instructions, which is truth maintenance's job.
        this.summary.revocationCandidateIds.push(candidate.id);
    }
  }

  private async entity(candidate: KnowledgeCandidate, p: EntityCandidate): Promise<void> {
    await this.entityId({ name: p.name, type: p.type, memoryCategory: p.memory_category, aliases: p.aliases }, candidate);
  }

  private async entityId(ref: EntityNameRef, candidate: KnowledgeCandidate): Promise<string> {
    const resolved = await this.resolver.resolve({ ...ref, type: ref.type ?? this.types.get(identityKey(ref.name)) }, candidate.id);
    if (!this.summary.entityIds.includes(resolved.entity.id)) this.summary.entityIds.push(resolved.entity.id);
    if (resolved.ambiguousWith) await this.ambiguity(resolved.entity, resolved.ambiguousWith);
    if (resolved.lookalikeOf) await this.lookalike(resolved.entity, resolved.lookalikeOf);
    return resolved.entity.id;
  }

  private async attribute(candidate: KnowledgeCandidate, p: AttributeCandidate): Promise<void> {
    const entityId = await this.entityId({ name: p.entity, type: p.entity_type, memoryCategory: p.memory_category }, candidate);
    const assertionId = await this.assertion(candidate, p, { subjectEntityId: entityId, predicate: p.key, objectLiteral: p.value });
    if (p.significance === "skip") return;
    const attributeId = await this.rows.attribute({ ...this.fact(p), entityId, key: p.key, value: p.value, assertionId });
    this.summary.attributeIds.push(attributeId);
  }

  private async relation(candidate: KnowledgeCandidate, p: RelationCandidate): Promise<void> {
    const subjectId = await this.entityId({ name: p.subject, type: p.subject_type, memoryCategory: p.memory_category }, candidate);
    const objectId = await this.entityId({ name: p.object, type: p.object_type, memoryCategory: p.memory_category }, candidate);
    const assertionId = await this.assertion(candidate, p, { subjectEntityId: subjectId, predicate: p.verb, objectEntityId: objectId });
    if (p.significance === "skip") return;
    const relationId = await this.rows.relation({ ...this.fact(p), subjectId, predicate: p.verb, objectId, assertionId });
    this.summary.relationIds.push(relationId);
  }

  /** Valid time starts at the extracted event time where there is one, else when the source was said or written. */
  private fact(p: AttributeCandidate | RelationCandidate) {
    return {
      contextId: this.source.contextId,
      memoryCategory: p.memory_category,
      confidence: p.confidence,
      scopeSetId: this.source.scopeSetId,
      validFrom: p.valid_from ? new Date(p.valid_from) : this.source.occurredAt,
      validTo: p.valid_to ? new Date(p.valid_to) : null,
    };
  }

  private async assertion(candidate: KnowledgeCandidate, p: AttributeCandidate | RelationCandidate, claim: Claim) {
    const span = this.span(candidate, p.evidence);
    const assertionId = await this.rows.assertion({
      ...this.origin(),
      candidateId: candidate.id,
      ...claim,
      documentNodeId: candidate.documentNodeId,
      startByte: span.startByte ?? 0,
      endByte: span.endByte ?? 0,
      quote: p.evidence.quote,
      confidence: p.confidence,
      significance: p.significance,
      memoryCategory: p.memory_category,
      stage: candidate.stage as ExtractionStage,
      model: candidate.model,
      eventTime: p.valid_from ? new Date(p.valid_from) : null,
      scopeSetId: this.source.scopeSetId,
      traceId: this.source.traceId,
    });
    this.summary.assertionIds.push(assertionId);
    return assertionId;
  }

  /** Candidate offsets are relative to their document node; stored spans are into the whole source text. */
  private span(candidate: KnowledgeCandidate, evidence: { start_byte?: number; end_byte?: number } | undefined) {
    const offset = candidate.documentNodeId ? (this.source.nodeOffsets.get(candidate.documentNodeId) ?? 0) : 0;
    if (evidence?.start_byte === undefined || evidence.end_byte === undefined) return { startByte: undefined, endByte: undefined };
    return { startByte: offset + evidence.start_byte, endByte: offset + evidence.end_byte };
  }

  private origin() {
    const { contextId, turnId, documentId, factWriteId } = this.source;
    return { contextId, turnId, documentId, factWriteId };
  }

  private async instruction(candidate: KnowledgeCandidate, p: InstructionCandidate): Promise<void> {
    const span = this.span(candidate, p.evidence);
    const instructionId = await this.rows.instruction({
      ...this.origin(),
      candidateId: candidate.id,
      label: p.label,
      description: p.description,
      scopeSetId: this.source.scopeSetId,
      quote: p.evidence?.quote,
      ...span,
    });
    this.summary.instructionIds.push(instructionId);
  }

  private async uncertainty(candidate: KnowledgeCandidate, p: UncertaintyCandidate): Promise<void> {
    const entityId = p.entity ? await this.entityId({ name: p.entity, memoryCategory: "context" }, candidate) : undefined;
    const uncertaintyId = await this.rows.uncertainty({
      ...this.origin(),
      candidateId: candidate.id,
      about: p.about,
      reason: p.reason,
      entityId,
      key: p.key,
      scopeSetId: this.source.scopeSetId,
    });
    this.summary.uncertaintyIds.push(uncertaintyId);
  }

  /** A name that fitted several known entities was stored as a new one; say so, so a reader can ask. */
  private async ambiguity(entity: Entity, matches: readonly Entity[]): Promise<void> {
    const reason = `"${entity.name}" fits ${matches.length} known entities (${known(matches)}) and nothing decided between them; it was recorded as a new entity`;
    await this.flag(entity, `which "${entity.name}" is meant`, reason);
  }

  private async lookalike(entity: Entity, matches: readonly Entity[]): Promise<void> {
    const reason = `"${entity.name}" is written in another script but looks like ${known(matches)}; it was recorded as a new entity, not merged`;
    await this.flag(entity, `whether "${entity.name}" is ${matches.map((e) => `"${e.name}"`).join(" or ")}`, reason);
  }

  private async flag(entity: Entity, about: string, reason: string): Promise<void> {
    const uncertaintyId = await this.rows.uncertainty({
      ...this.origin(),
      about,
      reason,
      entityId: entity.id,
      scopeSetId: this.source.scopeSetId,
    });
    this.summary.uncertaintyIds.push(uncertaintyId);
  }
}

function known(entities: readonly Entity[]): string {
  return entities.map((e) => `${e.name} (${e.type}, ${e.id})`).join("; ");
}
