// Extract again: inputs whose rules committed what they could read and whose rest waits for a model (`awaiting_model`)
// are extracted again once an operator has configured one. Never by itself: a model costs money, so the operator asks
// for it (HTTP, MCP, dashboard), after a dry run that says how many inputs and model calls (a session's turns grouped
// in windows the way an import groups them; a document one call per chunk) and what they are estimated to cost. The
// run queues them in the background lane, where contexts take turns; what the rules committed stays, and the model's
// reading adds only what they had not (apps/worker services/candidate-restage.ts; memory's later commit pass).
import { DomainError } from "@recall/contracts";
import { Prisma, type Db, type WorkItem } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { isRedisUnavailable } from "./connection";
import { itemTrace } from "./item-trace";
import type { QueueSet } from "./producer";
import { requeueWorkItem } from "./retry";
import { queueAwaitingModel } from "./work-state";

/** Extract-again without a model would only mark the inputs awaiting again: a 409 `no_model`. */
export class NoModelConfiguredError extends DomainError {
  override name = "NoModelConfiguredError";
  constructor() {
    super("conflict", "no extraction model is configured: set RECALL_FAST_MODEL (and its provider's key) first, then extract again", {
      problem: "no_model",
    });
  }
}

export interface ExtractAgainOptions {
  /** `provider:model` of the fast tier (the windows' model), undefined when none is configured. */
  model: string | undefined;
  /** USD per million input/output tokens by `provider:model` (RECALL_MODEL_PRICES_JSON). */
  prices: Record<string, { inputPerMTok: number; outputPerMTok: number }>;
  window: { maxTurns: number; maxChars: number };
  /** Inputs one call takes at most (docs/limits.md); the rest wait for the next call. */
  maxInputs?: number;
}

export interface ExtractAgainReport {
  dryRun: boolean;
  /** Inputs awaiting a model that the filter matches. */
  matched: number;
  /** Inputs this call takes (at most `maxInputs`): queued, or what a real run would queue. */
  inputs: number;
  /** Matched beyond this call's cap: a later call takes them. */
  remaining: number;
  byKind: { turns: number; documents: number; other: number };
  modelCalls: { total: number; windows: number; documentChunks: number; single: number };
  estimate: { model: string | null; inputTokens: number; outputTokens: number; costUsd: number | null; priced: boolean };
  queued: number;
}

/**
 * Rough and said so (docs/operating.md): ~4 characters a token for the text; each call adds the system prompt, the
 * output schema and the known entities; the answer runs about a third of the text, with a floor per input.
 */
const CHARS_PER_TOKEN = 4;
const PROMPT_TOKENS_PER_CALL = 1_800;
const OUTPUT_TOKENS_PER_INPUT = 120;

const DEFAULT_MAX_INPUTS = 1_000;

interface Awaiting {
  id: string;
  context_id: string;
  subject_type: string;
  session_id: string | null;
  seq: number | null;
  chars: number;
  chunks: number;
}

export class ExtractAgainService {
  constructor(
    private readonly deps: { db: Db; queues: QueueSet; logger: Logger },
    private readonly options: ExtractAgainOptions,
  ) {}

  async call(request: { contextId?: string; dryRun?: boolean }): Promise<ExtractAgainReport> {
    const dryRun = Boolean(request.dryRun);
    if (!dryRun && this.options.model === undefined) throw new NoModelConfiguredError();
    const maxInputs = this.options.maxInputs ?? DEFAULT_MAX_INPUTS;
    const matched = await this.count(request.contextId);
    const inputs = await this.awaiting(request.contextId, maxInputs);
    const report: ExtractAgainReport = {
      dryRun,
      matched,
      inputs: inputs.length,
      remaining: Math.max(0, matched - inputs.length),
      byKind: {
        turns: inputs.filter((i) => i.subject_type === "turn").length,
        documents: inputs.filter((i) => i.subject_type === "document").length,
        other: inputs.filter((i) => i.subject_type !== "turn" && i.subject_type !== "document").length,
      },
      ...this.estimate(inputs),
      queued: 0,
    };
    if (dryRun || inputs.length === 0) return report;
    report.queued = await this.queue(inputs.map((i) => i.id));
    this.deps.logger.info({ contextId: request.contextId, matched, queued: report.queued }, "extract again: inputs queued");
    return report;
  }

  private async count(contextId: string | undefined): Promise<number> {
    return this.deps.db.workItem.count({ where: { contextId, queue: "extract_assertions", status: "awaiting_model" } });
  }

  /** Interleaved between contexts (each context's oldest first), so one tenant's backlog does not fill a call's cap. */
  private awaiting(contextId: string | undefined, limit: number): Promise<Awaiting[]> {
    const inContext = contextId ? Prisma.sql`AND w.context_id = ${contextId}::uuid` : Prisma.empty;
    return this.deps.db.$queryRaw<Awaiting[]>`
      WITH items AS (
        SELECT w.id, w.context_id, w.subject_type, w.subject_id, w.created_at,
          row_number() OVER (PARTITION BY w.context_id ORDER BY w.created_at, w.id) AS place
        FROM work_items w
        WHERE w.queue = 'extract_assertions' AND w.status = 'awaiting_model' ${inContext}
      ), taken AS (
        SELECT * FROM items ORDER BY place, created_at, id LIMIT ${limit}
      )
      SELECT t.id, t.context_id::text, t.subject_type, tu.session_id::text, tu.seq,
        COALESCE(length(tu.content) + COALESCE(length(tu.attachment_text), 0), d.chars, 0)::int AS chars,
        COALESCE(d.chunks, 1)::int AS chunks
      FROM taken t
      LEFT JOIN turns tu ON t.subject_type = 'turn' AND tu.id = t.subject_id
      LEFT JOIN LATERAL (
        SELECT sum(length(n.text))::int AS chars, count(*)::int AS chunks FROM document_nodes n
        WHERE t.subject_type = 'document' AND n.document_id = t.subject_id
      ) d ON true
      ORDER BY t.place, t.created_at, t.id`;
  }

  /** Model calls as the run makes them: a session's turns in windows (turns and characters per window), a document's chunks one each. */
  private estimate(inputs: Awaiting[]): Pick<ExtractAgainReport, "modelCalls" | "estimate"> {
    const { window, model, prices } = this.options;
    const sessions = new Map<string, Awaiting[]>();
    let documentChunks = 0;
    let single = 0;
    for (const input of inputs) {
      if (input.subject_type === "turn" && input.session_id)
        sessions.set(input.session_id, [...(sessions.get(input.session_id) ?? []), input]);
      else if (input.subject_type === "document") documentChunks += input.chunks;
      else single += 1;
    }
    let windows = 0;
    for (const turns of sessions.values())
      windows += windowsOf(
        turns.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0)),
        window,
      );
    const calls = windows + documentChunks + single;
    const chars = inputs.reduce((n, i) => n + i.chars, 0);
    const inputTokens = Math.ceil(chars / CHARS_PER_TOKEN) + calls * PROMPT_TOKENS_PER_CALL;
    const outputTokens = Math.ceil(chars / CHARS_PER_TOKEN / 3) + inputs.length * OUTPUT_TOKENS_PER_INPUT;
    const price = model ? prices[model] : undefined;
    const costUsd = price ? round((inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1e6) : null;
    return {
      modelCalls: { total: calls, windows, documentChunks, single },
      estimate: { model: model ?? null, inputTokens, outputTokens, costUsd, priced: price !== undefined },
    };
  }

  private async queue(ids: string[]): Promise<number> {
    const items = await queueAwaitingModel(this.deps.db, ids);
    for (const item of items) await this.enqueue(item);
    return items.length;
  }

  private async enqueue(item: WorkItem): Promise<void> {
    try {
      await requeueWorkItem(this.deps.queues, item, itemTrace(item));
    } catch (err) {
      // Queued in Postgres: the sweeper puts it on its queue once Redis answers again.
      if (!isRedisUnavailable(err)) throw err;
    }
  }
}

/** Windows the turns of one session fill, in order, under the window limits (window-assembler.ts's rule). */
function windowsOf(turns: Awaiting[], limits: ExtractAgainOptions["window"]): number {
  let windows = 0;
  let [count, chars] = [0, 0];
  for (const turn of turns) {
    if (count > 0 && (count + 1 > limits.maxTurns || chars + turn.chars > limits.maxChars)) {
      windows++;
      [count, chars] = [0, 0];
    }
    count++;
    chars += turn.chars;
  }
  return windows + (count > 0 ? 1 : 0);
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
