// Which inputs an erasure request names: the ids it lists, the turns of the sessions it lists, and every input
// written under its scope (a turn's or direct write's scope, a document's metadata.scope, containing every pair
// asked for). Sessions and scope can name more inputs than one transaction should erase; they are taken oldest
// first up to the cap, and the receipt says the erasure is incomplete, so the same request again erases the rest.
import { Prisma, type Tx } from "@recall/db";

export type InputKind = "turn" | "document" | "fact_write" | "session";

export type InputIds = Record<InputKind, string[]>;

export interface EraseRequest {
  contextId: string;
  turnIds?: readonly string[];
  documentIds?: readonly string[];
  sessionIds?: readonly string[];
  factWriteIds?: readonly string[];
  /** Normalised key=value pairs; every input whose scope contains all of them. */
  scope?: readonly string[];
}

export interface ResolvedInputs {
  /** The inputs to erase (sessions: those asked for that exist). */
  erase: InputIds;
  /** Asked-for ids an earlier erasure of this context already erased. */
  alreadyErased: InputIds;
  /** Asked-for ids that are neither this context's nor erased from it. */
  notFound: { field: string; id: string }[];
  /** False when sessions or scope named more inputs than the cap. */
  complete: boolean;
}

export const emptyIds = (): InputIds => ({ turn: [], document: [], fact_write: [], session: [] });

const TABLE: Record<InputKind, string> = { turn: "turns", document: "documents", fact_write: "fact_writes", session: "sessions" };
const FIELD: Record<InputKind, string> = {
  turn: "turn_ids",
  document: "document_ids",
  fact_write: "fact_write_ids",
  session: "session_ids",
};

export async function resolveInputs(tx: Tx, request: EraseRequest, cap: number): Promise<ResolvedInputs> {
  const resolved: ResolvedInputs = { erase: emptyIds(), alreadyErased: emptyIds(), notFound: [], complete: true };
  const asked: InputIds = {
    turn: unique(request.turnIds),
    document: unique(request.documentIds),
    fact_write: unique(request.factWriteIds),
    session: unique(request.sessionIds),
  };
  for (const kind of Object.keys(asked) as InputKind[]) await sortAsked(tx, request.contextId, kind, asked[kind], resolved);
  const room = { left: cap - resolved.erase.turn.length - resolved.erase.document.length - resolved.erase.fact_write.length };
  const take = (kind: InputKind, ids: string[]) => {
    const fresh = ids.filter((id) => !resolved.erase[kind].includes(id));
    if (fresh.length > room.left) resolved.complete = false;
    const taken = fresh.slice(0, Math.max(room.left, 0));
    room.left -= taken.length;
    resolved.erase[kind].push(...taken);
  };
  if (resolved.erase.session.length > 0) take("turn", await sessionTurns(tx, request.contextId, resolved.erase.session, room.left + 1));
  const scope = request.scope ?? [];
  if (scope.length > 0) {
    for (const kind of ["turn", "fact_write", "document"] as const)
      take(kind, await scoped(tx, request.contextId, kind, scope, room.left + 1));
  }
  return resolved;
}

function unique(ids: readonly string[] | undefined): string[] {
  return [...new Set(ids ?? [])];
}

/** Each asked-for id is present (to erase), erased before, or unknown. */
async function sortAsked(tx: Tx, contextId: string, kind: InputKind, ids: string[], resolved: ResolvedInputs): Promise<void> {
  if (ids.length === 0) return;
  const present = new Set(await presentIds(tx, contextId, kind, ids));
  const erased = new Set(
    (
      await tx.erasedInput.findMany({
        where: { contextId, kind, inputId: { in: ids.filter((id) => !present.has(id)) } },
        select: { inputId: true },
      })
    ).map((e) => e.inputId),
  );
  for (const id of ids) {
    if (present.has(id)) resolved.erase[kind].push(id);
    else if (erased.has(id)) resolved.alreadyErased[kind].push(id);
    else resolved.notFound.push({ field: FIELD[kind], id });
  }
}

/** Which of the ids are rows of this context now. */
export async function presentIds(tx: Tx, contextId: string, kind: InputKind, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM ${Prisma.raw(TABLE[kind])} WHERE context_id = ${contextId}::uuid AND id = ANY(${[...ids]}::uuid[])`;
  return rows.map((r) => r.id);
}

async function sessionTurns(tx: Tx, contextId: string, sessionIds: string[], limit: number): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM turns WHERE context_id = ${contextId}::uuid AND session_id = ANY(${sessionIds}::uuid[])
    ORDER BY created_at, id LIMIT ${Math.max(limit, 0)}`;
  return rows.map((r) => r.id);
}

async function scoped(tx: Tx, contextId: string, kind: "turn" | "fact_write" | "document", scope: readonly string[], limit: number) {
  const pairs = [...scope];
  const where =
    kind === "document"
      ? Prisma.sql`metadata->'scope' @> to_jsonb(${pairs}::text[])`
      : Prisma.sql`scope_set_id IN (SELECT s.id FROM scope_sets s WHERE s.context_id = ${contextId}::uuid AND s.entries @> ${pairs}::text[])`;
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM ${Prisma.raw(TABLE[kind])} WHERE context_id = ${contextId}::uuid AND ${where}
    ORDER BY created_at, id LIMIT ${Math.max(limit, 0)}`;
  return rows.map((r) => r.id);
}
