// POST …/import (docs/export-format.md): an export's lines read one at a time and written in batches, each one
// INSERT … ON CONFLICT DO NOTHING. Ids are rewritten by a function keyed by the import's record (import-ids.ts), so
// a second run (or the rest of a run that failed part-way) creates nothing twice. An export imported into its own
// context keeps the ids of the rows the context holds: what is there stays, what is missing comes back (new ids).
import { DomainError, ServiceError } from "@recall/contracts";
import { Prisma, bypassWithin, transaction, type Db, type Tx } from "@recall/db";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, fieldOf, KIND_BY_NAME, KINDS, PORTABILITY_BATCH_ROWS, type KindSpec } from "./export-format";
import { NAMELESS_MESSAGE, namesSomething } from "../core/identity";
import type { PipelineRecords } from "../core/pipeline-records";
import { holdErasureExclusive } from "../core/erasure-lock";
import { erasedReference, foreignReference, type ErasedSite, type IdSite } from "./import-references";
import { lineCapIssue, type LineCapSettings } from "./line-caps";
import { remapRows, type ImportKey } from "./import-ids";

/** A line the importer refuses; `field` names what is wrong in it (`line` for the line as a whole): a 400 naming `line N.field`. */
export class ImportLineError extends DomainError {
  override name = "ImportLineError";
  constructor(
    readonly line: number,
    readonly field: string,
    message: string,
  ) {
    super("invalid", `line ${line}.${field}: ${message}`, { fields: [{ field: `line ${line}.${field}`, message }] });
  }
}

/** The context already holds memory that did not come from this export's context: a 409. */
export class ImportTargetNotEmptyError extends DomainError {
  override name = "ImportTargetNotEmptyError";
  constructor(message: string) {
    super("conflict", message, { fields: [{ field: "path.contextId", message }] });
  }
}

export interface ImportReport {
  sourceContextId: string;
  lines: number;
  /** Per kind: rows read, and rows created (the rest were there already). */
  counts: Record<string, { read: number; created: number }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Batch {
  spec: KindSpec;
  /** Each row's line number (blank lines are counted, not batched). */
  lines: number[];
  rows: Record<string, unknown>[];
  /** The lines' length: a batch of long rows (documents, long quotes) is written before it reaches its row count. */
  chars: number;
}

/** About 256 KB of lines a batch: what one batch holds in memory (as rows, and as the JSON sent) stays small. */
const BATCH_CHARS = 256 * 1024;

/** `records` answers whether an imported work item id is the pipeline's work of another context. */
export async function importContext(
  db: Db,
  contextId: string,
  lines: AsyncIterable<string>,
  records: Pick<PipelineRecords, "foreignWork">,
  caps: LineCapSettings = {},
): Promise<ImportReport> {
  const it = lines[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new ImportLineError(1, "line", "the body is empty: an export starts with its header line");
  const sourceContextId = parseHeader(first.value);
  const key = await claimTarget(db, contextId, sourceContextId);
  const report: ImportReport = { sourceContextId, lines: 1, counts: {} };
  let batch: Batch | undefined;
  let order = -1;
  let ended = false;
  for (let r = await it.next(); !r.done; r = await it.next()) {
    const n = ++report.lines;
    if (r.value.trim() === "") continue;
    if (ended) throw new ImportLineError(n, "kind", "a line after the end line");
    const row = parseLine(r.value, n);
    if (row.kind === "end") {
      ended = true;
      continue;
    }
    const spec = KIND_BY_NAME.get(String(row.kind));
    if (!spec)
      throw new ImportLineError(n, "kind", `unknown kind ${JSON.stringify(row.kind)}; known: ${KINDS.map((k) => k.kind).join(", ")}`);
    const at = KINDS.indexOf(spec);
    if (at < order)
      throw new ImportLineError(
        n,
        "kind",
        `a ${spec.kind} after a ${KINDS[order]!.kind}: kinds come in the order ${KINDS.map((k) => k.kind).join(", ")}`,
      );
    order = at;
    if (!batch || batch.spec !== spec || batch.rows.length >= PORTABILITY_BATCH_ROWS || batch.chars >= BATCH_CHARS) {
      if (batch?.rows.length) await flush(db, key, batch, report, records);
      batch = { spec, lines: [], rows: [], chars: 0 };
    }
    batch.lines.push(n);
    batch.rows.push(checkedRow(spec, row, n, caps));
    batch.chars += r.value.length;
  }
  if (batch?.rows.length) await flush(db, key, batch, report, records);
  if (!ended)
    throw new ImportLineError(
      report.lines + 1,
      "kind",
      "the export ends without its end line (truncated?): what was read is imported; import the whole export again to finish",
    );
  await db.contextImport.update({
    where: { contextId_sourceContextId: { contextId, sourceContextId } },
    data: { lines: report.lines, counts: report.counts, finishedAt: new Date() },
  });
  return report;
}

/** As deep as JSON request bodies may nest (MAX_JSON_DEPTH in the API): no export line comes near it. */
export const IMPORT_MAX_JSON_DEPTH = 64;

function parseLine(text: string, n: number): Record<string, unknown> {
  if (nestingExceeds(text, IMPORT_MAX_JSON_DEPTH))
    throw new ImportLineError(n, "line", `nests objects or arrays deeper than ${IMPORT_MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ImportLineError(n, "line", `not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ImportLineError(n, "line", "must be a JSON object");
  return value as Record<string, unknown>;
}

/** Brackets outside strings, counted char by char before JSON.parse: no recursion, whatever the depth. */
function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function parseHeader(text: string): string {
  const h = parseLine(text, 1);
  if (h.kind !== "header") throw new ImportLineError(1, "kind", 'the first line must be the header ({"kind": "header", …})');
  if (h.format !== EXPORT_FORMAT) throw new ImportLineError(1, "format", `must be "${EXPORT_FORMAT}"`);
  if (h.version !== EXPORT_FORMAT_VERSION)
    throw new ImportLineError(
      1,
      "version",
      `unknown format version ${JSON.stringify(h.version)}; this server reads version ${EXPORT_FORMAT_VERSION}`,
    );
  if (typeof h.context_id !== "string" || !UUID.test(h.context_id))
    throw new ImportLineError(1, "context_id", "must be the exported context's id");
  return h.context_id.toLowerCase();
}

/** Only the columns of its kind, every id an id (rewritten per batch: flush). Types past that are Postgres's to check. */
function checkedRow(spec: KindSpec, row: Record<string, unknown>, n: number, caps: LineCapSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const columnOf = new Map(spec.columns.map((c) => [fieldOf(spec, c), c]));
  for (const [field, value] of Object.entries(row)) {
    if (field === "kind") continue;
    const column = columnOf.get(field);
    if (!column) throw new ImportLineError(n, field, `not a field of a ${spec.kind} line`);
    out[column] = value;
  }
  for (const [column, value] of Object.entries(spec.defaults ?? {})) out[column] ??= value;
  if (typeof row.id !== "string") throw new ImportLineError(n, "id", "required");
  // The API's write caps hold for an import too (line-caps.ts): checked before any id is rewritten or row written.
  const capped = lineCapIssue(spec.kind, out, caps);
  if (capped) throw new ImportLineError(n, [fieldOf(spec, capped.column), ...capped.within].join("."), capped.message);
  for (const field of spec.ids) {
    const v = out[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" || !UUID.test(v)) throw new ImportLineError(n, field, "must be a uuid or null");
    out[field] = v.toLowerCase();
  }
  for (const [field, allowed] of Object.entries(spec.values ?? {})) {
    const v = out[field];
    if (v !== undefined && v !== null && !allowed.includes(v as string))
      throw new ImportLineError(n, fieldOf(spec, field), `must be one of ${allowed.join(", ")}`);
  }
  for (const field of spec.names ?? []) {
    const v = out[field];
    if (typeof v === "string" && !namesSomething(v)) throw new ImportLineError(n, fieldOf(spec, field), NAMELESS_MESSAGE);
  }
  for (const field of spec.idLists ?? []) {
    const v = out[field];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && UUID.test(x)))
      throw new ImportLineError(n, field, "must be a list of uuids");
    out[field] = v.map((x: string) => x.toLowerCase());
  }
  return out;
}

/**
 * One batch in one transaction: ids rewritten, checked against the tombstones, inserted, then every id it carries
 * checked against other contexts' rows. A line naming one refuses the whole batch (rolled back: nothing of it is
 * written) and names the line and field.
 */
async function flush(db: Db, key: ImportKey, batch: Batch, report: ImportReport, records: Pick<PipelineRecords, "foreignWork">) {
  const { spec, rows, lines } = batch;
  const contextId = key.targetContextId;
  let written: Record<string, unknown>[] = rows;
  let outcome: { created: number } | { foreign: IdSite };
  try {
    outcome = await transaction(db, async (tx) => {
      // After any erasure of the context running now has committed its tombstones, and none starts until this ends.
      await holdErasureExclusive(tx, contextId);
      written = await remapRows(tx, key, spec, rows);
      // The exported ids too: into its own context, an erased id is no row it holds, so it was rewritten.
      const erased = (await erasedReference(tx, contextId, spec, rows)) ?? (await erasedReference(tx, contextId, spec, written));
      if (erased) throw new ErasedReferenceError(erased);
      const created = await insertRows(tx, contextId, spec, written);
      // Under row-level security the transaction sees only this context's rows: the check looks at every context's.
      const foreign = await bypassWithin(tx, "import-reference-check", () => foreignReference(tx, contextId, spec, written, records));
      if (foreign) throw new ForeignReferenceError(foreign);
      return { created };
    });
  } catch (err) {
    if (err instanceof ErasedReferenceError) throw erasedLine(spec, lines, err.site);
    const refusedByPolicy = /row-level security policy/.test(databaseMessage(err));
    // A row whose policy reads its parent's context (a document node's document) is refused by the insert itself
    // when the parent is another context's: the same check, outside the rolled-back transaction, names the field.
    const site =
      err instanceof ForeignReferenceError
        ? err.site
        : refusedByPolicy
          ? await foreignSite(db, contextId, spec, written, records)
          : undefined;
    if (!site) {
      const range = `lines ${lines[0]}–${lines[lines.length - 1]}`;
      throw new ImportLineError(lines[0]!, spec.kind, `${range} (${spec.kind}) refused by the database: ${databaseMessage(err)}`);
    }
    outcome = { foreign: site };
  }
  if ("foreign" in outcome) {
    const { row, column } = outcome.foreign;
    throw new ImportLineError(
      lines[row]!,
      fieldOf(spec, column),
      "names a row that is not this context's: an import keeps an id only for a row of this context or one it creates",
    );
  }
  const c = (report.counts[spec.kind] ??= { read: 0, created: 0 });
  c.read += rows.length;
  c.created += outcome.created;
}

function erasedLine(spec: KindSpec, lines: number[], { row, column, erasureId, input }: ErasedSite): ImportLineError {
  const what = input ? "an input erased from this context" : "a row read from an input erased from this context";
  return new ImportLineError(
    lines[row]!,
    fieldOf(spec, column),
    `names ${what} (erasure ${erasureId}): an import never brings erased memory back`,
  );
}

function foreignSite(
  db: Db,
  contextId: string,
  spec: KindSpec,
  rows: Record<string, unknown>[],
  records: Pick<PipelineRecords, "foreignWork">,
): Promise<IdSite | undefined> {
  return transaction(db, (tx) => bypassWithin(tx, "import-reference-check", () => foreignReference(tx, contextId, spec, rows, records)));
}

/** Thrown inside the batch's transaction so it rolls back; never leaves this module. */
class ForeignReferenceError extends ServiceError {
  constructor(readonly site: IdSite) {
    super("a foreign reference");
  }
}

class ErasedReferenceError extends ServiceError {
  constructor(readonly site: ErasedSite) {
    super("a reference to an erased input");
  }
}

function insertRows(tx: Tx, contextId: string, spec: KindSpec, rows: Record<string, unknown>[]): Promise<number> {
  const json = JSON.stringify(rows.map((r) => (spec.owner === "context" ? { ...r, context_id: contextId } : r)));
  const columns = spec.owner === "context" ? [...spec.columns, "context_id"] : [...spec.columns];
  // A line's scope is stored as its set (core/scope-sets.ts), found or added in this context.
  const target = Prisma.raw(columns.map((c) => (c === "scope" ? "scope_set_id" : c)).join(", "));
  const values = Prisma.join(
    columns.map((c) =>
      c === "scope"
        ? Prisma.sql`recall_scope_set(${contextId}::uuid, ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(j.line->'scope') = 'array' THEN j.line->'scope' ELSE '[]'::jsonb END)))`
        : Prisma.raw(`r.${c}`),
    ),
    ", ",
  );
  return tx.$executeRaw`
    INSERT INTO ${Prisma.raw(spec.table)} (${target})
    SELECT ${values} FROM jsonb_array_elements(${json}::jsonb) AS j(line), jsonb_populate_record(NULL::${Prisma.raw(spec.table)}, j.line) AS r
    ON CONFLICT DO NOTHING`;
}

/** The driver's own message (`null value in column "content" …`, `invalid input syntax for type uuid`), which names the column. */
function databaseMessage(err: unknown): string {
  const meta =
    err instanceof Prisma.PrismaClientKnownRequestError
      ? (err.meta as { driverAdapterError?: { cause?: { originalMessage?: string } } })
      : undefined;
  const message = meta?.driverAdapterError?.cause?.originalMessage ?? (err instanceof Error ? err.message : String(err));
  return message.split("\n").filter(Boolean).slice(-1)[0] ?? "refused";
}

/**
 * A context takes the exports of one context: its own, or another's while it is empty or holds only what earlier
 * runs of that context's export wrote. Serialised on the context row, so two imports at once agree.
 */
async function claimTarget(db: Db, contextId: string, sourceContextId: string): Promise<ImportKey> {
  const claimed = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM contexts WHERE id = ${contextId}::uuid FOR UPDATE`;
    const others = await tx.contextImport.findFirst({ where: { contextId, NOT: { sourceContextId } }, select: { sourceContextId: true } });
    const mine = await tx.contextImport.findUnique({ where: { contextId_sourceContextId: { contextId, sourceContextId } } });
    if (sourceContextId !== contextId && !mine) {
      if (others) throw new ImportTargetNotEmptyError(`this context already holds an import of context ${others.sourceContextId}`);
      if (await holdsMemory(tx, contextId))
        throw new ImportTargetNotEmptyError(
          "this context already holds inputs or memory: import into an empty context, or into the exported one",
        );
    }
    return tx.contextImport.upsert({
      where: { contextId_sourceContextId: { contextId, sourceContextId } },
      create: { contextId, sourceContextId, formatVersion: EXPORT_FORMAT_VERSION, runs: 1 },
      update: { runs: { increment: 1 }, finishedAt: null },
      select: { id: true },
    });
  });
  return { sourceContextId, targetContextId: contextId, secret: claimed.id };
}

async function holdsMemory(tx: Tx, contextId: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ any: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM sessions WHERE context_id = ${contextId}::uuid)
        OR EXISTS (SELECT 1 FROM documents WHERE context_id = ${contextId}::uuid)
        OR EXISTS (SELECT 1 FROM fact_writes WHERE context_id = ${contextId}::uuid)
        OR EXISTS (SELECT 1 FROM entities WHERE context_id = ${contextId}::uuid) AS any`;
  return Boolean(row?.any);
}
