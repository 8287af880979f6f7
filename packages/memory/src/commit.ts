// commit_artifacts: one transaction per work item writes entities, the evidence
// layer (assertions), attributes and relations, instructions, uncertainties and the
// outbox row announcing them. The outbox row is keyed by the work item, so a
// re-delivery finds it and commits nothing twice.
import type {
  AttributeCandidate,
  EntityCandidate,
  InstructionCandidate,
  RelationCandidate,
  UncertaintyCandidate,
} from "@recall/extraction";
import { transaction, type Db, type ExtractionStage, type KnowledgeCandidate, type Prisma, type Tx } from "@recall/db";
import { EntityResolver } from "./entity-resolver";
import { identityKey } from "./identity";

export interface CommitSource {
  contextId: string;
  workItemId: string;
  subjectType: string;
  subjectId: string;
  turnId?: string;
  documentId?: string;
  scope: string[];
  /** When the source was said or written: the default start of validity. */
  occurredAt: Date;
  traceId: string;
  /** Byte offset of each document node inside the document text. */
  nodeOffsets: ReadonlyMap<string, number>;
}

export interface CommitSummary {
  skipped: boolean;
  entityIds: string[];
  assertionIds: string[];
  attributeIds: string[];
  relationIds: string[];
  instructionIds: string[];
  uncertaintyIds: string[];
  revocationCandidateIds: string[];
}

export async function commitCandidates(db: Db, source: CommitSource, candidates: KnowledgeCandidate[]): Promise<CommitSummary> {
  return transaction(
    db,
    async (tx) => {
      const summary = emptySummary();
      if (await tx.outboxEvent.findUnique({ where: { workItemId: source.workItemId } })) return { ...summary, skipped: true };
      const writer = new CandidateWriter(tx, source, summary, entityTypes(candidates));
      for (const candidate of candidates) await writer.write(candidate);
      await tx.knowledgeCandidate.updateMany({ where: { id: { in: candidates.map((c) => c.id) } }, data: { status: "committed" } });
      const { skipped: _skipped, ...refs } = summary;
      await tx.outboxEvent.create({
        data: {
          contextId: source.contextId,
          type: "artifacts_committed",
          workItemId: source.workItemId,
          traceId: source.traceId,
          payload: { subjectType: source.subjectType, subjectId: source.subjectId, ...refs } as Prisma.InputJsonValue,
        },
      });
      return summary;
    },
    { timeoutMs: 60_000 },
  );
}

function emptySummary(): CommitSummary {
  return {
    skipped: false,
    entityIds: [],
    assertionIds: [],
    attributeIds: [],
    relationIds: [],
    instructionIds: [],
    uncertaintyIds: [],
    revocationCandidateIds: [],
  };
}

/** Types named by entity candidates, so an attribute's "Alice" resolves to the person Alice. */
function entityTypes(candidates: KnowledgeCandidate[]): Map<string, string> {
  const types = new Map<string, string>();
  for (const c of candidates) {
    if (c.kind !== "entity") continue;
    const payload = c.payload as EntityCandidate;
    types.set(identityKey(payload.name), payload.type);
  }
  return types;
}

class CandidateWriter {
  private readonly resolver: EntityResolver;

  constructor(
    private readonly tx: Tx,
    private readonly source: CommitSource,
    private readonly summary: CommitSummary,
    private readonly types: Map<string, string>,
  ) {
    this.resolver = new EntityResolver(tx, source.contextId);
  }

  async write(candidate: KnowledgeCandidate): Promise<void> {
    switch (candidate.kind) {
      case "entity":
        return this.entity(candidate.payload as EntityCandidate);
      case "attribute":
        return this.attribute(candidate, candidate.payload as AttributeCandidate);
      case "relation":
        return this.relation(candidate, candidate.payload as RelationCandidate);
      case "instruction":
        return this.instruction(candidate, candidate.payload as InstructionCandidate);
      case "uncertainty":
        return this.uncertainty(candidate, candidate.payload as UncertaintyCandidate);
      case "revocation":
        this.summary.revocationCandidateIds.push(candidate.id);
    }
  }

  private async entityId(name: string, type: string | undefined, memoryCategory: EntityCandidate["memory_category"]): Promise<string> {
    const { entity } = await this.resolver.resolve({
      name,
      type: type ?? this.types.get(identityKey(name)),
      memoryCategory,
      scope: this.source.scope,
    });
    if (!this.summary.entityIds.includes(entity.id)) this.summary.entityIds.push(entity.id);
    return entity.id;
  }

  private async entity(payload: EntityCandidate): Promise<void> {
    const { entity } = await this.resolver.resolve({
      name: payload.name,
      type: payload.type,
      memoryCategory: payload.memory_category,
      scope: this.source.scope,
      aliases: payload.aliases,
    });
    if (!this.summary.entityIds.includes(entity.id)) this.summary.entityIds.push(entity.id);
  }

  private async attribute(candidate: KnowledgeCandidate, p: AttributeCandidate): Promise<void> {
    const entityId = await this.entityId(p.entity, p.entity_type, p.memory_category);
    const assertion = await this.assertion(candidate, p, { subjectEntityId: entityId, predicate: p.key, objectLiteral: p.value });
    if (p.significance === "skip") return;
    const attribute = await this.tx.attribute.create({
      data: { ...this.fact(p), entityId, key: p.key, value: p.value, assertionId: assertion.id },
    });
    this.summary.attributeIds.push(attribute.id);
  }

  private async relation(candidate: KnowledgeCandidate, p: RelationCandidate): Promise<void> {
    const subjectId = await this.entityId(p.subject, p.subject_type, p.memory_category);
    const objectId = await this.entityId(p.object, p.object_type, p.memory_category);
    const assertion = await this.assertion(candidate, p, { subjectEntityId: subjectId, predicate: p.verb, objectEntityId: objectId });
    if (p.significance === "skip") return;
    const relation = await this.tx.relation.create({
      data: { ...this.fact(p), subjectId, predicate: p.verb, objectId, assertionId: assertion.id },
    });
    this.summary.relationIds.push(relation.id);
  }

  private fact(p: AttributeCandidate | RelationCandidate) {
    return {
      contextId: this.source.contextId,
      memoryCategory: p.memory_category,
      confidence: p.confidence,
      scope: this.source.scope,
      validFrom: p.valid_from ? new Date(p.valid_from) : this.source.occurredAt,
      validTo: p.valid_to ? new Date(p.valid_to) : null,
    };
  }

  private async assertion(
    candidate: KnowledgeCandidate,
    p: AttributeCandidate | RelationCandidate,
    claim: { subjectEntityId: string; predicate: string; objectEntityId?: string; objectLiteral?: string },
  ) {
    const offset = candidate.documentNodeId ? (this.source.nodeOffsets.get(candidate.documentNodeId) ?? 0) : 0;
    const assertion = await this.tx.assertion.create({
      data: {
        contextId: this.source.contextId,
        candidateId: candidate.id,
        ...claim,
        turnId: this.source.turnId,
        documentId: this.source.documentId,
        documentNodeId: candidate.documentNodeId,
        startByte: offset + (p.evidence.start_byte ?? 0),
        endByte: offset + (p.evidence.end_byte ?? 0),
        quote: p.evidence.quote,
        confidence: p.confidence,
        significance: p.significance,
        memoryCategory: p.memory_category,
        stage: candidate.stage as ExtractionStage,
        model: candidate.model,
        eventTime: p.valid_from ? new Date(p.valid_from) : null,
        scope: this.source.scope,
        traceId: this.source.traceId,
      },
    });
    this.summary.assertionIds.push(assertion.id);
    return assertion;
  }

  private async instruction(candidate: KnowledgeCandidate, p: InstructionCandidate): Promise<void> {
    const instruction = await this.tx.instruction.create({
      data: {
        contextId: this.source.contextId,
        candidateId: candidate.id,
        label: p.label,
        description: p.description,
        scope: this.source.scope,
        turnId: this.source.turnId,
        documentId: this.source.documentId,
        quote: p.evidence?.quote,
        startByte: p.evidence?.start_byte,
        endByte: p.evidence?.end_byte,
      },
    });
    this.summary.instructionIds.push(instruction.id);
  }

  private async uncertainty(candidate: KnowledgeCandidate, p: UncertaintyCandidate): Promise<void> {
    const entityId = p.entity ? await this.entityId(p.entity, undefined, "context") : undefined;
    const uncertainty = await this.tx.uncertainty.create({
      data: {
        contextId: this.source.contextId,
        candidateId: candidate.id,
        about: p.about,
        reason: p.reason,
        entityId,
        key: p.key,
        scope: this.source.scope,
        turnId: this.source.turnId,
        documentId: this.source.documentId,
      },
    });
    this.summary.uncertaintyIds.push(uncertainty.id);
  }
}
