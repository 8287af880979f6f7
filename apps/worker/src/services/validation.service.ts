// Validation of a subject's staged candidates. Only candidates not yet checked are
// validated: a candidate found invalid keeps its errors, because validating the same
// payload again cannot change the answer (a new extraction stages new candidates instead).
// Every verdict of one work item is written in one transaction, so a crash leaves all or none.
import { toJson, transaction } from "@recall/db";
import { validateCandidate } from "@recall/memory";
import type { StagePayload } from "@recall/queues";
import type { WorkerDeps } from "../deps";
import { allowedEntityTypes } from "./skill-types";
import { loadStageSubject } from "./subject-loader";

export class ValidationService {
  constructor(private readonly deps: WorkerDeps) {}

  async validate(payload: StagePayload): Promise<void> {
    const { db } = this.deps;
    const subject = await loadStageSubject(db, payload);
    const candidates = await db.knowledgeCandidate.findMany({
      where: { subjectType: payload.subjectType, subjectId: payload.subjectId, status: "pending" },
      orderBy: { ordinal: "asc" },
    });
    const allowedTypes = await allowedEntityTypes(this.deps, payload.subjectType, payload.subjectId);
    const textByNode = new Map(subject.units.map((u) => [u.nodeId ?? "", u.text]));
    // Instructions come from the scope's own user (or a direct write), never from a document or an assistant's words.
    const mayInstruct = subject.type === "fact_write" || (subject.type === "turn" && (subject.role ?? "user") === "user");
    const verdicts = candidates.map((candidate) => {
      const sourceText = textByNode.get(candidate.documentNodeId ?? "") ?? "";
      const result = validateCandidate(candidate.kind, candidate.payload, { sourceText, allowedTypes, mayInstruct });
      const data = result.ok
        ? { status: "valid" as const, payload: toJson(result.payload), validationErrors: [] }
        : { status: "invalid" as const, validationErrors: toJson(result.issues) };
      return { id: candidate.id, data };
    });
    await transaction(db, async (tx) => {
      for (const { id, data } of verdicts) await tx.knowledgeCandidate.update({ where: { id }, data });
      await this.deps.faultPoint();
    });
  }
}
