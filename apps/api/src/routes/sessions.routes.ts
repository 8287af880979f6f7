import { z } from "zod";
import { isUniqueConstraintError, transaction, type Db } from "@recall/db";
import { listSessionTurns, normaliseScope } from "@recall/memory";
import { ensureWorkItem } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { AppError, notFound } from "../errors";
import { Cursor, encodeCursor, limitParam } from "../pagination";
import { enqueueOrLeaveForSweeper } from "../pipeline-status";
import { defineRoute, type RouteDefinition } from "../route-definition";
import { ScopeQuery } from "../scope-schema";
import { newTraceId } from "../trace";
import { diffView, extractionView, waitForTurn } from "../turn-result";
import { contextIdOf } from "../validate";
import { CreateSessionBody, CreateTurnBody, SessionParams, TurnPage, TurnResult } from "./sessions.schemas";

const TurnListQuery = z.object({ scope: ScopeQuery, limit: limitParam(100, 500), cursor: Cursor });

export function sessionRoutes(deps: ApiDeps): RouteDefinition[] {
  return [createSession(deps), postTurn(deps), listTurns(deps)];
}

function createSession(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/sessions",
    summary: "Start a conversation session",
    tags: ["sessions"],
    body: CreateSessionBody,
    responses: { 201: { description: "The new session", schema: z.object({ session_id: z.uuid() }) } },
    handle: async ({ body, req }) => {
      const session = await deps.db.session.create({ data: { contextId: contextIdOf(req), metadata: (body.metadata ?? {}) as object } });
      return { status: 201, body: { session_id: session.id } };
    },
  });
}

function postTurn(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/sessions/:sessionId/turns",
    summary: "Add a turn; answers once its extraction is committed",
    description:
      "The next /profile, /state or /query already reflects the turn. 202 with status pending if it takes longer than TURN_TIMEOUT_MS.",
    tags: ["sessions"],
    params: SessionParams,
    body: CreateTurnBody,
    responses: {
      200: { description: "The turn's committed (or failed) extraction", schema: TurnResult },
      202: { description: "Stored; extraction still running", schema: TurnResult },
    },
    handle: async ({ params, body }) => {
      await sessionOf(deps.db, params.contextId, params.sessionId);
      const { turn, workItem } = await storeTurn(deps.db, params.contextId, params.sessionId, body);
      await enqueueOrLeaveForSweeper(deps, workItem);
      const extraction = extractionView(await waitForTurn(deps.db, turn.id, deps.config.TURN_TIMEOUT_MS));
      const candidates = await deps.db.knowledgeCandidate.findMany({
        where: { turnId: turn.id, contextId: params.contextId },
        orderBy: { ordinal: "asc" },
      });
      const status = extraction.status === "pending" ? 202 : 200;
      return { status, body: { turn_id: turn.id, diff: diffView(candidates), extraction, trace_id: turn.traceId } };
    },
  });
}

function listTurns(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/sessions/:sessionId/turns",
    summary: "List a session's turns in order, those visible to the reader's scope",
    tags: ["sessions"],
    params: SessionParams,
    query: TurnListQuery,
    responses: { 200: { description: "A page of turns", schema: TurnPage } },
    handle: async ({ params, query }) => {
      await sessionOf(deps.db, params.contextId, params.sessionId);
      const page = await listSessionTurns(deps.db, { ...params, scope: query.scope, limit: query.limit, after: query.cursor });
      const turns = page.items.map(({ id, trace_id, ...t }) => ({ turn_id: id, ...t, trace_id }));
      return { status: 200, body: { turns, next_cursor: encodeCursor(page.next) } };
    },
  });
}

async function sessionOf(db: Db, contextId: string, sessionId: string) {
  const session = await db.session.findFirst({ where: { id: sessionId, contextId }, select: { id: true } });
  if (!session) throw notFound("session");
  return session;
}

/** Stores the turn and its first work item together; the sequence number is retried on a race. */
async function storeTurn(db: Db, contextId: string, sessionId: string, body: z.infer<typeof CreateTurnBody>) {
  const traceId = currentTraceId() ?? newTraceId();
  const scope = normaliseScope(body.scope);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await transaction(db, async (tx) => {
        const last = await tx.turn.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
        const turn = await tx.turn.create({
          data: {
            contextId,
            sessionId,
            seq: (last?.seq ?? 0) + 1,
            role: body.role,
            speaker: body.name,
            occurredAt: body.occurred_at ? new Date(body.occurred_at) : undefined,
            content: body.content,
            scope,
            traceId,
          },
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
