// Embeddings for what a commit wrote: the subject's own text (a turn's content, a
// document's nodes) and the facts and instructions committed from it, each in the text
// POST /query shows for it (TEXT_SOURCES), with the owner's scope. Runs after truth
// maintenance in the same work item. One embeddings call per subject; only a subject
// past the provider's per-request limits is split. Running it again is harmless: rows
// are upserted by (owner_kind, owner_id, model), so a retry replaces, never duplicates.
import { StageFailure, type CommittedRefs, type Embedder, kindOf } from "@recall/contracts";
import { Prisma, transaction, type Db, type DbOrTx } from "@recall/db";
import { holdSourceShared } from "../core/source-lock";
import { OWNER_OF } from "../read/search/embedder";
import { TEXT_SOURCES } from "../read/search/search-sql";
import type { SearchKind } from "../read/search/search-types";

export interface EmbeddingReport {
  embedded: number;
  tokensUsed: number;
}

export interface Target {
  kind: SearchKind;
  id: string;
  text: string;
  scope: string[];
}

// OpenAI's documented limits: 2,048 inputs and 300,000 tokens per request. Characters
// stand in for tokens (about four to a token in English), with room to spare.
const MAX_INPUTS_PER_CALL = 2_048;
const MAX_CHARS_PER_CALL = 800_000;

export async function embedCommitted(
  db: Db,
  embedder: Embedder,
  subject: { contextId: string; refs: CommittedRefs },
  signal?: AbortSignal,
): Promise<EmbeddingReport> {
  // A source deleted before its commit ran left nothing to find.
  if (subject.refs.retracted) return { embedded: 0, tokensUsed: 0 };
  const targets = await committedTargets(db, subject.contextId, subject.refs);
  let tokensUsed = 0;
  const vectors: number[][] = [];
  for (const batch of batches(targets)) {
    try {
      const texts = batch.map((t) => t.text);
      const result = await embedder.embed(texts, signal);
      vectors.push(...result.vectors);
      tokensUsed += result.usage.inputTokens;
    } catch (err) {
      // The attempt record shows what the failed try cost: earlier batches were paid for.
      throw new StageFailure(err, tokensUsed);
    }
  }
  if (targets.length > 0) await storeUnlessErased(db, subject, embedder.modelRef, targets, vectors);
  return { embedded: targets.length, tokensUsed };
}

/**
 * Stored under the subject's source lock, shared, and only while it has not been erased: an erasure (which holds
 * that lock exclusively) that ran while the texts were being embedded leaves no vector of them behind.
 */
async function storeUnlessErased(
  db: Db,
  subject: { contextId: string; refs: CommittedRefs },
  model: string,
  targets: Target[],
  vectors: number[][],
): Promise<void> {
  const subjectId = subject.refs.subjectId;
  await transaction(db, async (tx) => {
    if (subjectId) {
      await holdSourceShared(tx, subjectId);
      if ((await tx.erasedInput.count({ where: { inputId: subjectId } })) > 0) return;
    }
    await storeEmbeddings(tx, subject.contextId, model, targets, vectors);
  });
}

/** What to embed, in a stable order: the subject's text first, then its facts and instructions. */
async function committedTargets(db: DbOrTx, contextId: string, refs: CommittedRefs): Promise<Target[]> {
  const ids = (list: string[] | undefined) => (list?.length ? Prisma.sql`f.id = ANY(${list}::uuid[])` : undefined);
  const embeds = refs.subjectType ? kindOf(refs.subjectType).unit : undefined;
  const selections: [SearchKind, Prisma.Sql | undefined][] = [
    ["turn", embeds === "turn" && refs.subjectId ? Prisma.sql`f.id = ${refs.subjectId}::uuid` : undefined],
    ["document_node", embeds === "document_node" && refs.subjectId ? Prisma.sql`d.id = ${refs.subjectId}::uuid` : undefined],
    ["attribute", ids(refs.attributeIds)],
    ["relation", ids(refs.relationIds)],
    ["instruction", ids(refs.instructionIds)],
  ];
  const found = await Promise.all(
    selections.flatMap(([kind, where]) => (where ? [db.$queryRaw<Target[]>(targetsOf(kind, contextId, where))] : [])),
  );
  // The embeddings API refuses empty strings, and an empty text has nothing to find.
  return found.flat().filter((t) => t.text.trim() !== "");
}

function targetsOf(kind: SearchKind, contextId: string, where: Prisma.Sql): Prisma.Sql {
  const s = TEXT_SOURCES[kind];
  const order = kind === "document_node" ? Prisma.sql`f.ordinal` : Prisma.sql`f.id`;
  return Prisma.sql`SELECT ${kind}::text AS kind, f.id, ${s.text} AS text, ${s.scope} AS scope
    FROM ${s.from} WHERE ${s.context} = ${contextId}::uuid AND ${where} ORDER BY ${order}`;
}

function batches(targets: Target[]): Target[][] {
  const result: Target[][] = [];
  let current: Target[] = [];
  let chars = 0;
  for (const target of targets) {
    if (current.length > 0 && (current.length >= MAX_INPUTS_PER_CALL || chars + target.text.length > MAX_CHARS_PER_CALL)) {
      result.push(current);
      current = [];
      chars = 0;
    }
    current.push(target);
    chars += target.text.length;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** One statement for the whole subject; the vectors travel as JSON and become double precision[] in Postgres. */
export async function storeEmbeddings(db: DbOrTx, contextId: string, model: string, targets: Target[], vectors: number[][]): Promise<void> {
  const rows = targets.map((t, i) => ({ owner_kind: OWNER_OF[t.kind], owner_id: t.id, vector: vectors[i], scope: t.scope }));
  await db.$executeRaw`
    INSERT INTO embeddings (id, context_id, owner_kind, owner_id, model, dimensions, vector, scope_set_id)
    SELECT gen_random_uuid(), ${contextId}::uuid, r.owner_kind::"EmbeddingOwner", r.owner_id, ${model}, cardinality(r.vector), r.vector,
      recall_scope_set(${contextId}::uuid, r.scope)
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(owner_kind text, owner_id uuid, vector float8[], scope text[])
    ON CONFLICT (owner_kind, owner_id, model)
    DO UPDATE SET vector = EXCLUDED.vector, dimensions = EXCLUDED.dimensions, scope_set_id = EXCLUDED.scope_set_id, created_at = now()`;
}
