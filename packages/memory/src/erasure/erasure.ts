// Erasure: the text of some inputs (turns, documents, direct writes; sessions and a scope name inputs too) deleted
// for good from every table that holds it, with whatever was learned only from them, in one transaction that ends
// with a receipt (the `erasures` row: ids, counts per kind, a hash, the time; never the text) and a tombstone per
// erased input (`erased_inputs`). Unlike a retraction (../retraction), which marks rows and keeps the text for the
// audit, nothing erased can be read back. See docs/erasure.md.
//
// Races. The transaction first takes the context's erasure lock, shared (an import's batch takes it exclusively:
// core/erasure-lock.ts), then locks the sessions' rows (as writers of a session do: no turn is stored meanwhile,
// and none after the receipt, the session being gone), then the pipeline's work on the inputs (FOR UPDATE, PipelineRecords.lockWork), then each input's source lock
// exclusively (core/source-lock.ts), in id order. A stage finishing meanwhile holds its item's row lock in the
// transaction that writes its output (packages/pipeline work-state/finish-item.ts), so it either commits before the
// erasure reads (and its output is erased with the rest) or finds its item deleted, fails, and writes nothing; its
// job's next claim finds no item. Two erasures of one input queue on the same locks; the second finds the input
// gone and reports it as already erased.
import { createHash } from "node:crypto";
import { DomainError, type ErasedWorkItem } from "@recall/contracts";
import { Prisma, toJson, transaction, type Db, type Tx } from "@recall/db";
import { removeOriginal } from "../core/document-originals";
import { undoSourceInTransaction, type RetractableSource } from "../retraction/retraction";
import { holdSourceExclusive } from "../core/source-lock";
import type { PipelineRecords } from "../core/pipeline-records";
import { deleteErased, type DerivedRow, type ErasureCounts } from "./erasure-delete";
import { emptyIds, presentIds, resolveInputs, type EraseRequest, type InputIds, type InputKind } from "./erasure-inputs";
import { deleteContext } from "./context-erasure";
import { holdScopeExclusive } from "../core/scope-lock";
import { holdErasureShared } from "../core/erasure-lock";

export type { EraseRequest, InputIds, InputKind } from "./erasure-inputs";

export const ERASURE_LIMITS = {
  /** Ids per list of one request (turn_ids, document_ids, session_ids, fact_write_ids). */
  idsPerList: 100,
  /** Inputs one erasure erases; sessions and scope beyond it are left for the same request again. */
  inputsPerErasure: 500,
} as const;

export interface ErasureReceipt {
  erasureId: string;
  contextId: string;
  kind: "inputs" | "context";
  erased: InputIds;
  alreadyErased: InputIds;
  counts: ErasureCounts;
  /** sha256 (hex) over the sorted lines `kind id digest` of the erased inputs, computed before they were deleted. */
  hash: string;
  complete: boolean;
  erasedAt: Date;
}

/** Asked-for ids that are not this context's (and were never erased from it): nothing was erased; a 404 naming each. */
export class UnknownErasureInputsError extends DomainError {
  override name = "UnknownErasureInputsError";
  constructor(readonly unknown: { field: string; id: string }[]) {
    super("not_found", `nothing erased: not in this context: ${unknown.map((u) => `${u.field} ${u.id}`).join(", ")}`, {
      fields: unknown.map((u) => ({ field: `body.${u.field}`, message: `${u.id} is not in this context` })),
    });
  }
}

export interface EraseOptions {
  /** What the pipeline keeps of the inputs (work, announcements, events): asked to lock and forget them. */
  records: PipelineRecords;
  /** The blob directory documents' originals may be stored in (RECALL_BLOB_DIR). */
  blobDir?: string;
  /** Inputs per erasure (defaults to ERASURE_LIMITS.inputsPerErasure). */
  cap?: number;
  /** Called after the commit with the work items deleted: their queue jobs outlive them unless removed. */
  removeJobs?: (items: readonly ErasedWorkItem[]) => Promise<void>;
}

const SOURCE: Record<Exclude<InputKind, "session">, RetractableSource> = { turn: "turn", document: "document", fact_write: "fact_write" };

export async function eraseInputs(db: Db, request: EraseRequest, options: EraseOptions): Promise<ErasureReceipt> {
  const cap = options.cap ?? ERASURE_LIMITS.inputsPerErasure;
  const { receipt, blobPaths, workItems } = await transaction(
    db,
    async (tx) => {
      // Imports first (core/erasure-lock.ts): a batch of one either committed before this or waits for the receipt.
      await holdErasureShared(tx, request.contextId);
      // Writers next: the scope's writers hold its pairs' locks (scope-lock.ts) and a session's writers its row
      // while they store (turn.service.ts), so once the erasure holds them every input they stored is read below,
      // and the ones after the receipt are new inputs (or find their session gone).
      if (request.scope?.length) await holdScopeExclusive(tx, request.contextId, request.scope);
      await lockSessions(tx, request.contextId, request.sessionIds ?? [], request.turnIds ?? []);
      const resolved = await resolveInputs(tx, request, cap);
      if (resolved.notFound.length > 0) throw new UnknownErasureInputsError(resolved.notFound);
      await lockSessions(tx, request.contextId, resolved.erase.session, resolved.erase.turn);
      await lockInputs(tx, resolved.erase, options.records);
      await dropVanished(tx, request.contextId, resolved.erase, resolved.alreadyErased);
      const lines = await inputLines(tx, resolved.erase);
      const now = new Date();
      for (const kind of ["turn", "document", "fact_write"] as const) {
        for (const sourceId of resolved.erase[kind]) {
          await undoSourceInTransaction(tx, { contextId: request.contextId, sourceType: SOURCE[kind], sourceId, reason: "erasure" }, now);
        }
      }
      const outcome = await deleteErased(tx, request.contextId, resolved.erase, options.records);
      const erased = { ...resolved.erase, session: outcome.sessionIds };
      const receipt = await record(tx, {
        contextId: request.contextId,
        kind: "inputs",
        request: requestIds(request),
        erased,
        alreadyErased: resolved.alreadyErased,
        counts: outcome.counts,
        hash: hashLines([...lines, ...outcome.sessionLines]),
        complete: resolved.complete,
      });
      await tombstone(tx, receipt, { window: outcome.windowIds, batch: outcome.batchIds }, outcome.readFrom);
      return { receipt, blobPaths: outcome.blobPaths, workItems: outcome.workItems };
    },
    // A deadlock with a stage finishing on the same items is retried here, never answered (each try starts over).
    { timeoutMs: 120_000, maxRetries: 8 },
  );
  await removeBlobs(db, options.blobDir, blobPaths);
  await options.removeJobs?.(workItems);
  return receipt;
}

/** The whole context: every row of it in every table, its API keys and the context itself. Null when it does not exist. */
export async function eraseContext(db: Db, contextId: string, options: EraseOptions): Promise<ErasureReceipt | null> {
  const done = await transaction(
    db,
    async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id::text FROM contexts WHERE id = ${contextId}::uuid FOR UPDATE`;
      if (locked.length === 0) return null;
      const hash = await contextHash(tx, contextId);
      const { counts, blobPaths } = await deleteContext(tx, contextId, options.records);
      const erased = { ...emptyIds(), context: [contextId] };
      const receipt = await record(tx, {
        contextId,
        kind: "context",
        request: { context_id: contextId },
        erased,
        alreadyErased: emptyIds(),
        counts,
        hash,
        complete: true,
      });
      return { receipt, blobPaths };
    },
    { timeoutMs: 600_000 },
  );
  if (!done) return null;
  await removeBlobs(db, options.blobDir, done.blobPaths);
  return done.receipt;
}

export async function readErasure(db: Db, contextId: string, erasureId: string): Promise<ErasureReceipt | null> {
  const row = await db.erasure.findFirst({ where: { id: erasureId, contextId } });
  if (!row) return null;
  return {
    erasureId: row.id,
    contextId: row.contextId,
    kind: row.kind === "context" ? "context" : "inputs",
    erased: { ...emptyIds(), ...(row.erased as Partial<InputIds>) },
    alreadyErased: { ...emptyIds(), ...(row.alreadyErased as Partial<InputIds>) },
    counts: row.counts as ErasureCounts,
    hash: row.hash,
    complete: row.complete,
    erasedAt: row.createdAt,
  };
}

/**
 * The rows of the sessions asked for and of the erased turns' sessions, in id order: what a writer of a session
 * holds while it stores a turn (so no turn is stored meanwhile, and a session left empty is deleted with none).
 */
async function lockSessions(tx: Tx, contextId: string, sessionIds: readonly string[], turnIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0 && turnIds.length === 0) return;
  await tx.$queryRaw`SELECT id FROM sessions WHERE context_id = ${contextId}::uuid AND (id = ANY(${[...sessionIds]}::uuid[])
    OR id IN (SELECT session_id FROM turns WHERE id = ANY(${[...turnIds]}::uuid[]))) ORDER BY id FOR UPDATE`;
}

/** Work items first, then the source locks, each in id order (see the header). */
async function lockInputs(tx: Tx, ids: InputIds, records: PipelineRecords): Promise<void> {
  const sources = [...ids.turn, ...ids.document, ...ids.fact_write].sort();
  await records.lockWork(tx, [...sources, ...ids.session], sources);
  for (const id of sources) await holdSourceExclusive(tx, id);
}

/** Inputs another erasure removed while this one waited for the locks are reported as already erased. */
async function dropVanished(tx: Tx, contextId: string, erase: InputIds, alreadyErased: InputIds): Promise<void> {
  for (const kind of Object.keys(erase) as InputKind[]) {
    const present = new Set(await presentIds(tx, contextId, kind, erase[kind]));
    alreadyErased[kind].push(...erase[kind].filter((id) => !present.has(id)));
    erase[kind] = erase[kind].filter((id) => present.has(id));
  }
}

const DIGEST = (column: string) => Prisma.raw(`encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`);

/** The receipt lines of the erased turns, documents and direct writes, read before they are deleted (sessions: erasure-delete.ts). */
async function inputLines(tx: Tx, ids: InputIds): Promise<string[]> {
  const rows = await tx.$queryRaw<{ line: string }[]>`
    SELECT 'turn ' || id || ' ' || ${DIGEST("content")} AS line FROM turns WHERE id = ANY(${ids.turn}::uuid[])
    UNION ALL SELECT 'document ' || id || ' ' || ${DIGEST("text")} || ' ' || content_hash FROM documents WHERE id = ANY(${ids.document}::uuid[])
    UNION ALL SELECT 'fact_write ' || id || ' ' || ${DIGEST("text")} FROM fact_writes WHERE id = ANY(${ids.fact_write}::uuid[])`;
  return rows.map((r) => r.line);
}

/** The same lines for every input of the context, hashed in Postgres (a context may hold millions). */
async function contextHash(tx: Tx, contextId: string): Promise<string> {
  const [row] = await tx.$queryRaw<{ hash: string }[]>`
    SELECT encode(sha256(convert_to(COALESCE(string_agg(line, E'\n' ORDER BY line COLLATE "C"), ''), 'UTF8')), 'hex') AS hash FROM (
      SELECT 'turn ' || id || ' ' || ${DIGEST("content")} AS line FROM turns WHERE context_id = ${contextId}::uuid
      UNION ALL SELECT 'document ' || id || ' ' || ${DIGEST("text")} || ' ' || content_hash FROM documents WHERE context_id = ${contextId}::uuid
      UNION ALL SELECT 'fact_write ' || id || ' ' || ${DIGEST("text")} FROM fact_writes WHERE context_id = ${contextId}::uuid
      UNION ALL SELECT 'session ' || id || ' ' || ${DIGEST("metadata::text")} FROM sessions WHERE context_id = ${contextId}::uuid) l`;
  return row!.hash;
}

/** sha256 of the lines sorted by code point and joined by newlines: what contextHash computes in SQL. */
export function hashLines(lines: readonly string[]): string {
  const sorted = [...lines].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(sorted.join("\n"), "utf8").digest("hex");
}

function requestIds(request: EraseRequest): Record<string, unknown> {
  return {
    turn_ids: request.turnIds ?? [],
    document_ids: request.documentIds ?? [],
    session_ids: request.sessionIds ?? [],
    fact_write_ids: request.factWriteIds ?? [],
    scope: request.scope ?? [],
  };
}

type NewReceipt = Omit<ErasureReceipt, "erasureId" | "erasedAt" | "erased"> & {
  request: Record<string, unknown>;
  erased: InputIds | (InputIds & { context: string[] });
};

async function record(tx: Tx, r: NewReceipt): Promise<ErasureReceipt> {
  const row = await tx.erasure.create({
    data: {
      contextId: r.contextId,
      kind: r.kind,
      request: toJson(r.request),
      erased: toJson(r.erased),
      alreadyErased: toJson(r.alreadyErased),
      counts: toJson(r.counts),
      hash: r.hash,
      complete: r.complete,
    },
  });
  const { request: _request, ...rest } = r;
  return { ...rest, erased: { ...emptyIds(), ...r.erased }, erasureId: row.id, erasedAt: row.createdAt };
}

/**
 * A tombstone per erased input, per window or batch deleted with them (a job still queued for one ends quietly), and
 * per row deleted as read from them (an export's line of it is refused on import, though it names no input).
 */
async function tombstone(
  tx: Tx,
  receipt: ErasureReceipt,
  pipeline: Record<"window" | "batch", readonly string[]>,
  readFrom: readonly DerivedRow[],
): Promise<void> {
  const { contextId, erasureId } = receipt;
  const rows = [
    ...(["turn", "document", "fact_write", "session"] as const).flatMap((kind) =>
      receipt.erased[kind].map((inputId) => ({ inputId, kind })),
    ),
    ...pipeline.window.map((inputId) => ({ inputId, kind: "window" })),
    ...pipeline.batch.map((inputId) => ({ inputId, kind: "batch" })),
    ...readFrom.map((r) => ({ inputId: r.id, kind: r.kind })),
  ];
  await tx.erasedInput.createMany({ data: rows.map((r) => ({ ...r, contextId, erasureId })), skipDuplicates: true });
}

/** Blob files no remaining document points to (the same bytes are stored once for every document that has them). */
async function removeBlobs(db: Db, blobDir: string | undefined, paths: readonly string[]): Promise<void> {
  if (!blobDir || paths.length === 0) return;
  const still = new Set(
    (await db.document.findMany({ where: { blobPath: { in: [...paths] } }, select: { blobPath: true } })).map((d) => d.blobPath),
  );
  for (const path of paths) if (!still.has(path)) await removeOriginal(blobDir, path);
}
