// Validation of a subject's staged candidates. Only candidates not yet checked are
// validated: a candidate found invalid keeps its errors, because validating the same
// payload again cannot change the answer (a new extraction stages new candidates instead).
// Every verdict of one work item is written in the transaction that records the stage's
// success, so a crash leaves all or none.
import { kindOf } from "@recall/contracts";
import type { KnowledgeCandidate, Tx } from "@recall/db";
import { validateCandidate } from "@recall/memory";
import type { ClaimedWork, StageContext, StageResult } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import { allowedEntityTypes } from "./skill-types";
import { candidatesOf, documentUnits, stageSubject, type TextUnit } from "./subject-loader";

/** What validation reads in the claim's transaction: the pending candidates, and a document's nodes. */
export interface ValidationInput {
  candidates: KnowledgeCandidate[];
  units: TextUnit[];
}

export async function loadValidationInput(tx: Tx, claim: ClaimedWork): Promise<ValidationInput> {
  const { subjectType, subjectId } = claim.item;
  const candidates = await tx.knowledgeCandidate.findMany({
    where: { subjectType, subjectId, status: "pending" },
    orderBy: { ordinal: "asc" },
  });
  return { candidates, units: candidates.length > 0 ? await documentUnits(tx, claim) : [] };
}

/** `loadValidationInput` for many subjects (a group's turns): their pending candidates in one read. */
export async function loadValidationInputs(tx: Tx, claims: ClaimedWork[]): Promise<ValidationInput[]> {
  const bySubject = await candidatesOf(tx, claims, "pending");
  const inputs: ValidationInput[] = [];
  for (const [i, claim] of claims.entries()) {
    const candidates = bySubject[i]!;
    inputs.push({ candidates, units: candidates.length > 0 ? await documentUnits(tx, claim) : [] });
  }
  return inputs;
}

/** A candidate's verdict: valid with its checked payload, or invalid with why. */
export type Verdict = { id: string } & ({ status: "valid"; payload: unknown } | { status: "invalid"; issues: unknown });

/** Verdicts of a group's turns written together (validate's `prepareWrites`): each turn's write adds its own. */
export interface VerdictBatch {
  verdicts: Verdict[];
}

export class ValidationService {
  constructor(private readonly deps: Pick<WorkerDeps, "skills">) {}

  validate(ctx: StageContext<ValidationInput>): StageResult<VerdictBatch> {
    const { claim, input } = ctx;
    const subject = stageSubject(claim, input.units);
    const allowedTypes = allowedEntityTypes(this.deps, claim.plan);
    const textByNode = new Map(subject.units.map((u) => [u.nodeId ?? "", u.text]));
    // Instructions come from the scope's own user (or a direct write), never from a document or an assistant's words.
    const { instructs } = kindOf(subject.type);
    const mayInstruct = instructs === "always" || (instructs === "from the user" && (subject.role ?? "user") === "user");
    const verdicts = input.candidates.map((candidate): Verdict => {
      const sourceText = textByNode.get(candidate.documentNodeId ?? "") ?? "";
      const result = validateCandidate(candidate.kind, candidate.payload, { sourceText, allowedTypes, mayInstruct });
      return result.ok
        ? { id: candidate.id, status: "valid", payload: result.payload }
        : { id: candidate.id, status: "invalid", issues: result.issues };
    });
    return {
      status: "succeeded",
      write: async (tx, prepared) => {
        if (prepared) prepared.verdicts.push(...verdicts);
        else await writeVerdicts(tx, verdicts);
      },
    };
  }
}

/**
 * Every verdict in one statement: a valid candidate takes its checked payload and no errors, an invalid one keeps its
 * payload and gets its errors.
 */
export async function writeVerdicts(tx: Tx, verdicts: readonly Verdict[]): Promise<void> {
  if (verdicts.length === 0) return;
  const column = <T>(f: (v: Verdict) => T) => verdicts.map(f);
  await tx.$executeRaw`
    UPDATE knowledge_candidates c SET status = v.status::"CandidateStatus", payload = coalesce(v.payload, c.payload),
      validation_errors = v.errors
    FROM unnest(${column((v) => v.id)}::uuid[], ${column((v) => v.status)}::text[],
      ${column((v) => (v.status === "valid" ? JSON.stringify(v.payload) : null))}::jsonb[],
      ${column((v) => JSON.stringify(v.status === "valid" ? [] : v.issues))}::jsonb[]) AS v(id, status, payload, errors)
    WHERE c.id = v.id`;
}
