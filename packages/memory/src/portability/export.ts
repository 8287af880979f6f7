// GET …/export (docs/export-format.md): a context as NDJSON, one row a line, in one REPEATABLE READ snapshot so the
// lines agree with each other. Rows are read in keyset pages (by id) and each page is handed to `write`, which
// resolves when the reader has taken it (backpressure): memory holds one page, never a table. An erasure of the
// context committed while it streamed ends it with an error line in place of the end line.
import { Prisma, type Db, type DbOrTx, type Tx } from "@recall/db";
import { visibleTo } from "../read/sql-fragments";
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  fieldOf,
  KIND_BY_NAME,
  KINDS,
  PORTABILITY_BATCH_ROWS,
  type ExportFilters,
  type KindSpec,
} from "./export-format";

/** How long one export's snapshot may stay open. */
export const EXPORT_SNAPSHOT_MAX_MS = 30 * 60_000;
/** Documents carry their whole text (up to RECALL_DOCUMENT_MAX_BYTES each): they are read a few at a time. */
const DOCUMENT_PAGE_ROWS = 2;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const CANDIDATE = KIND_BY_NAME.get("candidate")!;

export type ExportCounts = Record<string, number>;

export async function exportContext(
  db: Db,
  contextId: string,
  filters: ExportFilters,
  write: (chunk: string) => Promise<void>,
): Promise<ExportCounts> {
  const { counts, erasuresSeen } = await db.$transaction(
    async (tx) => {
      // The first statement takes the snapshot: the erasures it sees are the ones the rows below already reflect.
      const erasuresSeen = await erasureCount(tx, contextId);
      const counts: ExportCounts = {};
      await write(`${JSON.stringify(header(contextId, filters))}\n`);
      for (const spec of KINDS) counts[spec.kind] = await exportKind(tx, contextId, spec, filters, write);
      return { counts, erasuresSeen };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: EXPORT_SNAPSHOT_MAX_MS, maxWait: 30_000 },
  );
  // Checked once the snapshot's connection is back in the pool (a check from inside would need a second connection
  // per open export, and enough open exports would wait on each other for good).
  const erased = await erasedSince(db, contextId, erasuresSeen);
  const last = erased.length > 0 ? erasedDuringExport(erased) : { kind: "end", counts };
  await write(`${JSON.stringify(last)}\n`);
  return counts;
}

/**
 * An erasure of the context committed while the export streamed: the snapshot still held what it erased, so the
 * lines may hold it. The export ends with this error line instead of its end line (docs/erasure.md).
 */
function erasedDuringExport(erasureIds: string[]) {
  return {
    kind: "error",
    error: "erased_during_export",
    erasure_ids: erasureIds,
    message:
      "an erasure of this context committed while this export was streaming; the lines before this one may hold what it erased: discard this export and take a new one",
  };
}

async function erasureCount(db: DbOrTx, contextId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM erasures WHERE context_id = ${contextId}::uuid`;
  return row!.n;
}

/** The ids of the context's erasures committed since the snapshot saw `seen` of them, newest first. */
async function erasedSince(db: Db, contextId: string, seen: number): Promise<string[]> {
  const now = await erasureCount(db, contextId);
  if (now <= seen) return [];
  const newest = await db.erasure.findMany({
    where: { contextId },
    orderBy: { createdAt: "desc" },
    take: now - seen,
    select: { id: true },
  });
  return newest.map((e) => e.id);
}

function header(contextId: string, filters: ExportFilters) {
  return {
    kind: "header",
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    context_id: contextId,
    exported_at: new Date().toISOString(),
    filters: { scope: filters.scope ?? null, since: filters.since?.toISOString() ?? null, until: filters.until?.toISOString() ?? null },
    original_bytes: "omitted",
  };
}

async function exportKind(tx: Tx, contextId: string, spec: KindSpec, filters: ExportFilters, write: (chunk: string) => Promise<void>) {
  const pageRows = spec.kind === "document" ? DOCUMENT_PAGE_ROWS : PORTABILITY_BATCH_ROWS;
  const key = Prisma.raw(`t.${spec.keyset ?? "id"}`);
  const keyType = Prisma.raw(spec.keyset ? "bigint" : "uuid");
  let after = spec.keyset ? "0" : NIL_UUID;
  let count = 0;
  for (;;) {
    const page = await tx.$queryRaw<{ key: string; line: string }[]>`
      SELECT ${key}::text AS key, ${lineOf(spec)}::text AS line
      FROM ${Prisma.raw(spec.table)} t ${spec.owner === "document" ? Prisma.sql`JOIN documents d ON d.id = t.document_id` : Prisma.empty}
      WHERE ${whereOf(spec, contextId, filters)} AND ${key} > ${after}::${keyType}
      ORDER BY ${key} LIMIT ${pageRows}`;
    if (page.length === 0) return count;
    await write(page.map((r) => `${r.line}\n`).join(""));
    count += page.length;
    after = page[page.length - 1]!.key;
    if (page.length < pageRows) return count;
  }
}

/** json_build_object('kind', 'turn', 'id', t.id, …): Postgres writes the line, the process only passes it on. */
function lineOf(spec: KindSpec): Prisma.Sql {
  // A row's scope is its set's entries (core/scope-sets.ts): the file keeps the pairs themselves, as they were sent.
  const pairs = spec.columns.map((c) => `'${fieldOf(spec, c)}', ${c === "scope" ? "recall_scope(t.scope_set_id)" : `t.${c}`}`).join(", ");
  return Prisma.raw(`json_build_object('kind', '${spec.kind}', ${pairs})`);
}

function whereOf(spec: KindSpec, contextId: string, filters: ExportFilters, alias = "t"): Prisma.Sql {
  const owner = spec.owner === "document" ? "d" : alias;
  const a = Prisma.raw(alias);
  const parts = [Prisma.sql`${Prisma.raw(owner)}.context_id = ${contextId}::uuid`];
  if (spec.kind === "review") {
    // A review goes with its candidate (which carries the input's words): by the candidate's time and input scope.
    parts.push(Prisma.sql`EXISTS (SELECT 1 FROM knowledge_candidates c WHERE c.id = ${a}.candidate_id
      AND ${whereOf(CANDIDATE, contextId, filters, "c")})`);
    return Prisma.join(parts, " AND ");
  }
  const timeColumn = Prisma.raw(spec.owner === "document" ? "d.created_at" : `${alias}.${spec.time}`);
  if (spec.kind === "session") {
    // Sessions have neither scope nor a time of their own that matters: with a filter, those of the turns exported.
    if (hasFilter(filters)) parts.push(Prisma.sql`EXISTS (SELECT 1 FROM turns u WHERE u.session_id = ${a}.id AND ${turnFilter(filters)})`);
    return Prisma.join(parts, " AND ");
  }
  if (filters.since) parts.push(Prisma.sql`${timeColumn} >= ${filters.since}`);
  if (filters.until) parts.push(Prisma.sql`${timeColumn} < ${filters.until}`);
  if (filters.scope && spec.scope === "scope") parts.push(visibleTo(alias, filters.scope));
  if (filters.scope && spec.scope === "metadata") parts.push(Prisma.sql`${documentScope(owner)} <@ ${filters.scope}::text[]`);
  if (filters.scope && spec.scope === "input") parts.push(candidateInputVisible(alias, filters.scope));
  if (spec.kind === "candidate")
    parts.push(Prisma.sql`(${a}.status = 'committed'
      OR EXISTS (SELECT 1 FROM reviews r WHERE r.candidate_id = ${a}.id))`);
  return Prisma.join(parts, " AND ");
}

function turnFilter(filters: ExportFilters): Prisma.Sql {
  const parts = [Prisma.sql`TRUE`];
  if (filters.since) parts.push(Prisma.sql`u.created_at >= ${filters.since}`);
  if (filters.until) parts.push(Prisma.sql`u.created_at < ${filters.until}`);
  if (filters.scope) parts.push(visibleTo("u", filters.scope));
  return Prisma.join(parts, " AND ");
}

/** A document's scope is its metadata.scope (document.service.ts). */
function documentScope(alias: string): Prisma.Sql {
  return Prisma.raw(
    `ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(${alias}.metadata->'scope') = 'array' THEN ${alias}.metadata->'scope' ELSE '[]'::jsonb END))`,
  );
}

/** A candidate carries its input's text: exported only when a reader in the scope sees that input. */
function candidateInputVisible(alias: string, scope: string[]): Prisma.Sql {
  const a = Prisma.raw(alias);
  return Prisma.sql`(
    (${a}.turn_id IS NOT NULL AND EXISTS (SELECT 1 FROM turns u WHERE u.id = ${a}.turn_id AND ${visibleTo("u", scope)}))
    OR (${a}.subject_type = 'document' AND EXISTS (SELECT 1 FROM documents dd WHERE dd.id = ${a}.subject_id AND ${documentScope("dd")} <@ ${scope}::text[]))
    OR (${a}.subject_type = 'fact_write' AND EXISTS (SELECT 1 FROM fact_writes f WHERE f.id = ${a}.subject_id AND ${visibleTo("f", scope)})))`;
}

function hasFilter(filters: ExportFilters): boolean {
  return Boolean(filters.scope || filters.since || filters.until);
}
