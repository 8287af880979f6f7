import { Router } from "express";
import { z } from "zod";
import { isUniqueConstraintError, transaction, type Db } from "@recall/db";
import { ensureWorkItem } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { AppError, notFound } from "../errors";
import { enqueueOrLeaveForSweeper } from "../pipeline-status";
import { newTraceId } from "../trace";
import { diffView, extractionView, waitForTurn } from "../turn-result";
import { contextIdOf, parseBody, parseParams } from "../validate";

export const ScopeList = z
  .array(z.string().regex(/^[A-Za-z0-9_.-]+=[^=\s][^\s]*$/, "each scope entry must look like key=value"))
  .max(32)
  .default([]);

export const CreateTurnBody = z.object({
  role: z.enum(["user", "assistant", "system", "tool"]),
  content: z.string().min(1, "must not be empty").max(100_000),
  scope: ScopeList,
});

const SessionParams = z.object({ contextId: z.string(), sessionId: z.string().uuid("must be a session id") });

export function sessionRoutes(deps: ApiDeps): Router {
  const router = Router({ mergeParams: true });
  router.post("/sessions", async (req, res) => {
    const metadata = z.object({ metadata: z.record(z.string(), z.unknown()).optional() }).parse(req.body ?? {}).metadata;
    const session = await deps.db.session.create({ data: { contextId: contextIdOf(req), metadata: (metadata ?? {}) as object } });
    res.status(201).json({ session_id: session.id });
  });
  router.post("/sessions/:sessionId/turns", async (req, res) => {
    const { contextId, sessionId } = parseParams(SessionParams, req.params);
    const body = parseBody(CreateTurnBody, req.body);
    const session = await deps.db.session.findFirst({ where: { id: sessionId, contextId } });
    if (!session) throw notFound("session");
    const { turn, workItem } = await storeTurn(deps.db, contextId, sessionId, body);
    await enqueueOrLeaveForSweeper(deps, workItem);
    const items = await waitForTurn(deps.db, turn.id, deps.config.TURN_TIMEOUT_MS);
    const extraction = extractionView(items);
    const candidates = await deps.db.knowledgeCandidate.findMany({ where: { turnId: turn.id }, orderBy: { ordinal: "asc" } });
    res
      .status(extraction.status === "pending" ? 202 : 200)
      .json({ turn_id: turn.id, diff: diffView(candidates), extraction, trace_id: turn.traceId });
  });
  router.get("/sessions/:sessionId/turns", async (req, res) => {
    const { contextId, sessionId } = parseParams(SessionParams, req.params);
    const session = await deps.db.session.findFirst({ where: { id: sessionId, contextId } });
    if (!session) throw notFound("session");
    const turns = await deps.db.turn.findMany({ where: { sessionId }, orderBy: { seq: "asc" }, take: 1_000 });
    res.json({
      turns: turns.map((t) => ({
        turn_id: t.id,
        seq: t.seq,
        role: t.role,
        content: t.content,
        scope: t.scope,
        created_at: t.createdAt,
        trace_id: t.traceId,
      })),
    });
  });
  return router;
}

/** Stores the turn and its first work item together; the sequence number is retried on a race. */
async function storeTurn(db: Db, contextId: string, sessionId: string, body: z.infer<typeof CreateTurnBody>) {
  const traceId = currentTraceId() ?? newTraceId();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await transaction(db, async (tx) => {
        const last = await tx.turn.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
        const turn = await tx.turn.create({
          data: { contextId, sessionId, seq: (last?.seq ?? 0) + 1, role: body.role, content: body.content, scope: body.scope, traceId },
        });
        const workItem = await ensureWorkItem(tx, {
          contextId,
          queue: "extract_assertions",
          subjectType: "turn",
          subjectId: turn.id,
          traceId,
        });
        return { turn, workItem };
      });
    } catch (err) {
      if (!isUniqueConstraintError(err)) throw err;
    }
  }
  throw new AppError(409, "conflict", "too many concurrent turns in this session; retry");
}
