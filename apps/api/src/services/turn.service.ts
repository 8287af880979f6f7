// Conversation ingest: sessions, and turns stored with their first work item in one
// transaction, queued, and answered once truth maintenance has applied them. One instance per
// API process (built in bootstrap.ts): its session lines are what keeps concurrent turns to one
// session in order of arrival, for single turns and batches alike.
import { notFound } from "@recall/contracts";
import { toJson, transaction, type Tx } from "@recall/db";
import { attachmentColumns, normaliseScope, scopeSetIdOf } from "@recall/memory";
import { createWorkItems, enqueueOrLeaveForSweeper, turnExtraction, type EnqueueTarget } from "@recall/pipeline";
import { annotateActiveSpan, currentTraceId, newTraceId } from "@recall/telemetry";
import { diffView, extractionView } from "../views/turn-result";
import { checkScope } from "./scope-rule";
import { claimSessionSeq, sessionBusy, type ClaimedSeq } from "./session-sequence";
import type { ServiceDeps } from "./service-deps";
import { storeTurnBatch, type StoredBatch } from "./turn-batch-store";
import { waitForTurn, type TurnCompletion } from "./turn-completion";
import type { BatchTurn, TurnInput } from "./turn-input";
import { KeyedWaitLines } from "./wait-line";

export interface TurnServiceOptions {
  /** How long a turn's answer waits for its pipeline before answering `pending`. */
  turnTimeoutMs: number;
  /** Wakes the wait when the turn's work commits (Postgres NOTIFY), instead of polling. */
  completion: TurnCompletion;
  /** RECALL_SESSION_WAIT_MS: how long a turn waits for the session's earlier turns to be stored. */
  sessionWaitMs: number;
}

/** Turns waiting for one session in one process; one more is refused at once (503, Retry-After). */
const MAX_WAITING_PER_SESSION = 500;

export class TurnService {
  private readonly sessions: KeyedWaitLines;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: TurnServiceOptions,
  ) {
    this.sessions = new KeyedWaitLines({
      maxWaitMs: options.sessionWaitMs,
      maxWaiting: MAX_WAITING_PER_SESSION,
      what: "this session",
      refusal: () => sessionBusy(options.sessionWaitMs),
    });
  }

  async createSession(contextId: string, metadata: Record<string, unknown> = {}): Promise<string> {
    const session = await this.deps.db.session.create({ data: { contextId, metadata: toJson(metadata) } });
    return session.id;
  }

  /** Throws not_found when the session is not this context's. */
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
      return { waited: true as const, turn, extraction: extractionView(items, candidates), diff: diffView(candidates) };
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

  /** A batch of one session's turns (history import): stored together after the session's earlier turns, then queued. */
  async addBatch(contextId: string, sessionId: string, turns: BatchTurn[]): Promise<StoredBatch> {
    const traceId = currentTraceId() ?? newTraceId();
    const place = { contextId, sessionId };
    const scopes = turns.flatMap((t) => normaliseScope(t.scope));
    const stored = await this.inSessionOrder(place, scopes, (tx, { seq, contextConfig }) => {
      turns.forEach((t, i) => checkScope(contextConfig, t.scope, `body.turns.${i}.scope`));
      return storeTurnBatch(tx, { ...place, firstSeq: seq, traceId }, turns);
    });
    await enqueueOrLeaveForSweeper(this.deps, stored.item);
    return stored;
  }

  /** Stores the turn and its first work item together: accepted means kept. */
  private async storeTurn(contextId: string, sessionId: string, input: TurnInput) {
    const traceId = currentTraceId() ?? newTraceId();
    const scope = normaliseScope(input.scope);
    const stored = await this.inSessionOrder({ contextId, sessionId }, scope, async (tx, { seq, contextConfig }) => {
      checkScope(contextConfig, scope, "body.scope");
      const scopeSetId = await scopeSetIdOf(tx, contextId, scope);
      const turn = await tx.turn.create({
        data: {
          contextId,
          sessionId,
          seq,
          role: input.role,
          speaker: input.name,
          occurredAt: input.occurred_at ? new Date(input.occurred_at) : undefined,
          content: input.content,
          ...attachmentColumns(input.attachments),
          scopeSetId,
          traceId,
        },
      });
      const mode = input.wait ? "interactive" : "windowed";
      const [workItem] = await createWorkItems(tx, [turnExtraction({ contextId, turnId: turn.id, traceId, mode })]);
      return { turn, workItem: workItem! };
    });
    annotateActiveSpan({ "recall.session_id": sessionId, "recall.turn_id": stored.turn.id });
    return stored;
  }

  /** Requests for the session waiting in this process for the one being stored (operators, tests). */
  waitingFor(sessionId: string): number {
    return this.sessions.waiting(sessionId);
  }

  /**
   * Runs `store` in a transaction holding the session, with the next sequence number: in order of
   * arrival within this process (the session's line, entered before anything else is awaited),
   * and across processes (the row lock). Throws not_found when the session is not the context's.
   */
  private inSessionOrder<T>(
    session: { contextId: string; sessionId: string },
    scope: readonly string[],
    store: (tx: Tx, claimed: ClaimedSeq) => Promise<T>,
  ): Promise<T> {
    const waitMs = this.options.sessionWaitMs;
    const stored = () => transaction(this.deps.db, async (tx) => store(tx, await claimSessionSeq(tx, session, waitMs, scope)));
    return this.sessions.run(session.sessionId, stored);
  }
}
