// validate_artifacts: checks every staged candidate of the subject and records its errors.
import type { StageProcessor } from "@recall/queues";
import { validateCandidate } from "@recall/memory";
import type { Prisma } from "@recall/db";
import type { WorkerDeps } from "../deps";
import { loadSubject } from "../subject-loader";
import { allowedEntityTypes } from "../skill-types";

export function validateArtifactsProcessor(deps: WorkerDeps): StageProcessor {
  return async ({ payload }) => {
    const subject = await loadSubject(deps.db, payload);
    const candidates = await deps.db.knowledgeCandidate.findMany({
      where: { subjectType: payload.subjectType, subjectId: payload.subjectId, status: { in: ["pending", "valid", "invalid"] } },
      orderBy: { ordinal: "asc" },
    });
    const allowedTypes = await allowedEntityTypes(deps, payload.subjectType, payload.subjectId);
    const textByNode = new Map(subject.units.map((u) => [u.nodeId ?? "", u.text]));
    for (const candidate of candidates) {
      const sourceText = textByNode.get(candidate.documentNodeId ?? "") ?? "";
      const result = validateCandidate(candidate.kind, candidate.payload, { sourceText, allowedTypes });
      await deps.db.knowledgeCandidate.update({
        where: { id: candidate.id },
        data: result.ok
          ? { status: "valid", payload: result.payload as Prisma.InputJsonValue, validationErrors: [] }
          : { status: "invalid", validationErrors: result.errors },
      });
    }
    return { status: "succeeded" };
  };
}
