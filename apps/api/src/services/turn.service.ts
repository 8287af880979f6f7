// Conversation ingest: sessions, and turns stored with their first work item in one
// transaction, queued, and answered once truth maintenance has applied them.
import type { z } from "zod";
import { isUniqueConstraintError, toJson, transaction } from "@recall/db";
import { normaliseScope } from "@recall/memory";
import { createWorkItems, enqueueOrLeaveForSweeper, turnExtraction, type EnqueueTarget } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import { AppError, notFound } from "../http/errors";
import type { CreateTurnBody } from "../routes/sessions.schemas";
import { newTraceId } from "../http/trace";
import { diffView, extractionView, waitForTurn } from "../views/turn-result";
import type { ServiceDeps } from "./service-deps";
import type { TurnCompletion } from "./turn-completion";

export interface TurnServiceOptions {
  /** How long a turn's answer waits for its pipeline before answering `pending`. */
  turnTimeoutMs: number;
  /** Wakes the wait when the turn's work commits (Postgres NOTIFY), instead of polling. */
  completion: TurnCompletion;
}

type TurnInput = z.infer<typeof CreateTurnBody>;

/** Two turns racing for a session's next sequence number collide on this constraint; the loser takes the next one. */
const TURN_SEQUENCE_CONSTRAINT = "turns_session_id_seq_key";
const SEQUENCE_ATTEMPTS = 5;

export class TurnService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: TurnServiceOptions,
  ) {}

  async createSession(contextId: string, metadata: Record<string, unknown> = {}): Promise<string> {
    const session = await this.deps.db.session.create({ data: { contextId, metadata: toJson(metadata) } });
    return session.id;
  }

  /** Throws 404 when the session is not this context's. */
  async requireSession(contextId: string, sessionId: string): Promise<void> {
    const session = await this.deps.db.session.findFirst({ where: { id: sessionId, contextId }, select: { id: true } });
    if (!session) throw notFound("session");
  }

  /**
   * Stores, queues and waits for the turn; the answer carries its committed diff (or where it
   * stopped). Once the turn is stored the answer is never an error: if waiting fails (the
   * database went away meanwhile), it is `waited: false` and the caller answers 202 with the
   * status URL. An error answer would give the Idempotency-Key back, and the client's retry
   * would store the turn twice.
   */
  async addTurn(contextId: string, sessionId: string, input: TurnInput) {
    const { turn, workItem } = await this.storeTurn(contextId, sessionId, input);
    try {
      const { items, candidates } = await this.queueAndWait(turn, workItem);
      return { waited: true as const, turn, extraction: extractionView(items), diff: diffView(candidates) };
    } catch (err) {
      this.deps.logger.warn({ turnId: turn.id, err: (err as Error).message }, "turn stored; waiting for its extraction failed");
      return { waited: false as const, turn };
    }
  }

  /**
   * Listens for the turn's completion before its job can run, so the completion cannot be missed and
   * nothing is read until it comes. Queued whatever happens: the turn is stored.
   */
  private async queueAndWait(turn: { id: string; contextId: string }, workItem: EnqueueTarget) {
    let completed: ReturnType<TurnCompletion["next"]>;
    try {
      completed = this.options.completion.next(turn.id);
    } finally {
      await enqueueOrLeaveForSweeper(this.deps, workItem);
    }
    return waitForTurn(this.deps.db, this.options.completion, turn, this.options.turnTimeoutMs, completed);
  }

  /** wait: false — stores and queues the turn for windowed extraction and answers at once. */
  async acceptTurn(contextId: string, sessionId: string, input: TurnInput) {
    const { turn, workItem } = await this.storeTurn(contextId, sessionId, input);
    await enqueueOrLeaveForSweeper(this.deps, workItem);
    return turn;
  }

  /** Stores the turn and its first work item together: accepted means kept. Throws 404 when the session is not this context's. */
  async storeTurn(contextId: string, sessionId: string, input: TurnInput) {
    const traceId = currentTraceId() ?? newTraceId();
    const scope = normaliseScope(input.scope);
    for (let attempt = 0; attempt < SEQUENCE_ATTEMPTS; attempt++) {
      try {
        return await transaction(this.deps.db, async (tx) => {
          const session = await tx.session.findFirst({
            where: { id: sessionId, contextId },
            select: { turns: { orderBy: { seq: "desc" }, take: 1, select: { seq: true } } },
          });
          if (!session) throw notFound("session");
          const turn = await tx.turn.create({
            data: {
              contextId,
              sessionId,
              seq: (session.turns[0]?.seq ?? 0) + 1,
              role: input.role,
              speaker: input.name,
              occurredAt: input.occurred_at ? new Date(input.occurred_at) : undefined,
              content: input.content,
              scope,
              traceId,
            },
          });
          const mode = input.wait ? "interactive" : "windowed";
          const [workItem] = await createWorkItems(tx, [turnExtraction({ contextId, turnId: turn.id, traceId, mode })]);
          return { turn, workItem: workItem! };
        });
      } catch (err) {
        if (!isUniqueConstraintError(err, TURN_SEQUENCE_CONSTRAINT)) throw err;
      }
    }
    throw new AppError(409, "conflict", "too many concurrent turns in this session; retry");
  }
}
