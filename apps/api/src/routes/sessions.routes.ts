import { notFound } from "@recall/contracts";
import { z } from "zod";
import { listSessionTurns, readSessionTurn } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import type { TurnService } from "../services/turn.service";
import { contextIdOf } from "../http/validate";
import { turnAccepted, turnStatusUrl } from "../views/turn-result";
import {
  CreateSessionBody,
  CreateTurnBody,
  SessionParams,
  TurnAccepted,
  TurnPage,
  TurnParams,
  TurnResult,
  TurnView,
} from "./sessions.schemas";
import { EXAMPLES } from "./openapi-examples";

const TurnListQuery = z.object({ scope: ScopeQuery, limit: limitParam(100, 500), cursor: cursorParam("seq") });
const TurnQuery = z.object({ scope: ScopeQuery });

export function sessionRoutes(deps: ApiDeps): RouteDefinition[] {
  const turns = deps.turnService;
  return [createSession(turns), postTurn(turns), listTurns(deps, turns), getTurn(deps)];
}

function createSession(turns: TurnService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/sessions",
    summary: "Start a conversation session",
    description:
      "A session orders its turns: each turn gets the next sequence number, and extraction reads the turns before it for context. `metadata` is kept with the session (at most REQUEST_BODY_LIMIT_BYTES of JSON).",
    tags: ["sessions"],
    body: CreateSessionBody,
    responses: { 201: { description: "The new session", schema: z.object({ session_id: z.uuid() }) } },
    handle: async ({ body, req }) => {
      return { status: 201, body: { session_id: await turns.createSession(contextIdOf(req), body.metadata) } };
    },
  });
}

function postTurn(turns: TurnService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/sessions/:sessionId/turns",
    summary: "Add a turn; answers once its extraction is committed",
    description:
      "The next /profile, /state or /query already reflects the turn. 202 with status pending if it takes longer than TURN_TIMEOUT_MS. 409 session_erased when an erasure deleted the session (docs/erasure.md).",
    tags: ["sessions"],
    params: SessionParams,
    body: CreateTurnBody,
    bodyExample: EXAMPLES.turn.request,
    responses: {
      200: { description: "The turn's committed (or failed) extraction", schema: TurnResult, example: EXAMPLES.turn.response },
      202: {
        description: "Stored; extraction still running (wait: false answers this at once, with a status_url)",
        schema: z.union([TurnResult, TurnAccepted]),
      },
    },
    handle: async ({ params, body }) => {
      if (!body.wait) return { status: 202, body: turnAccepted(params, await turns.acceptTurn(params.contextId, params.sessionId, body)) };
      const added = await turns.addTurn(params.contextId, params.sessionId, body);
      if (!added.waited) return { status: 202, body: turnAccepted(params, added.turn) };
      const { turn, diff, extraction } = added;
      // Still pending when the wait ended (a 202): the answer says where to follow it, as the other 202s do.
      if (extraction.status === "pending")
        return {
          status: 202,
          body: { turn_id: turn.id, diff, extraction, status_url: turnStatusUrl(params, turn.id), trace_id: turn.traceId },
        };
      return { status: 200, body: { turn_id: turn.id, diff, extraction, trace_id: turn.traceId } };
    },
  });
}

function listTurns(deps: ApiDeps, service: TurnService): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/sessions/:sessionId/turns",
    summary: "List a session's turns in order, those visible to the reader's scope",
    description:
      "Turns in sequence order with their role, content, scope and extraction status. Turns written in a scope the reader does not hold are left out. A page ends early when the next turn would take the answer past 1 MB (docs/limits.md); `next_cursor` continues after it. 404 when the session is not in this context.",
    tags: ["sessions"],
    params: SessionParams,
    query: TurnListQuery,
    responses: { 200: { description: "A page of turns", schema: TurnPage } },
    handle: async ({ params, query, req, res }) => {
      await service.requireSession(params.contextId, params.sessionId);
      const page = await readWhereConsistent(deps, req, res, (db) =>
        listSessionTurns(db, { ...params, scope: query.scope, limit: query.limit, after: query.cursor }),
      );
      return { status: 200, body: { turns: page.items.map(turnView), next_cursor: encodeCursor(page.next) } };
    },
  });
}

function getTurn(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/sessions/:sessionId/turns/:turnId",
    summary: "One turn with its whole content",
    description:
      "Where a `/query` hit's excerpt (`truncated: true`) is read in full. 404 when the turn is not in this session and context, or was written in a scope the reader does not hold.",
    tags: ["sessions"],
    params: TurnParams,
    query: TurnQuery,
    responses: { 200: { description: "The turn", schema: TurnView } },
    handle: async ({ params, query, req, res }) => {
      const turn = await readWhereConsistent(deps, req, res, (db) => readSessionTurn(db, { ...params, scope: query.scope }));
      if (!turn) throw notFound("turn");
      return { status: 200, body: turnView(turn) };
    },
  });
}

function turnView({ id, trace_id, ...t }: NonNullable<Awaited<ReturnType<typeof readSessionTurn>>>) {
  return { turn_id: id, ...t, trace_id };
}
