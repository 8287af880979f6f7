// validate_artifacts: checks every staged candidate of the subject and records its errors.
// Only candidates not yet checked are validated: a candidate found invalid keeps its
// errors, because validating the same payload again cannot change the answer (a new
// extraction stages new candidates instead). Invalid candidates never fail the stage;
// they are reported in the subject's status and the valid ones go on to commit.
import type { StageProcessor } from "@recall/queues";
import { validateCandidate } from "@recall/memory";
import type { Prisma } from "@recall/db";
import type { WorkerDeps } from "../deps";
import { loadStageSubject } from "../subject-loader";
import { allowedEntityTypes } from "../skill-types";

export function validateArtifactsProcessor(deps: WorkerDeps): StageProcessor {
  return async ({ payload }) => {
    const subject = await loadStageSubject(deps.db, payload);
    const candidates = await deps.db.knowledgeCandidate.findMany({
      where: { subjectType: payload.subjectType, subjectId: payload.subjectId, status: "pending" },
      orderBy: { ordinal: "asc" },
    });
    const allowedTypes = await allowedEntityTypes(deps, payload.subjectType, payload.subjectId);
    const textByNode = new Map(subject.units.map((u) => [u.nodeId ?? "", u.text]));
    // Instructions come from the scope's own user (or a direct write), never from a document or an assistant's words.
    const mayInstruct = subject.type === "fact_write" || (subject.type === "turn" && (subject.role ?? "user") === "user");
    for (const candidate of candidates) {
      const sourceText = textByNode.get(candidate.documentNodeId ?? "") ?? "";
      const result = validateCandidate(candidate.kind, candidate.payload, { sourceText, allowedTypes, mayInstruct });
      await deps.db.knowledgeCandidate.update({
        where: { id: candidate.id },
        data: result.ok
          ? { status: "valid", payload: result.payload as Prisma.InputJsonValue, validationErrors: [] }
          : { status: "invalid", validationErrors: result.issues as unknown as Prisma.InputJsonValue },
      });
    }
    return { status: "succeeded" };
  };
}
