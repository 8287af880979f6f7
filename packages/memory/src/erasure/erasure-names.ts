// Names an erased input stated first and other inputs' rows copied. "I'm Quorvane, CTO at Acme." then "I live in
// Berlin." of the same speaker: the second turn's extraction names its speaker Quorvane, so when the first turn is
// erased the entity survives (the second turn mentions it) and so would the name, in the entity, the second turn's
// candidates and every read ("Quorvane lives_in Berlin"). Here, in the erasure's transaction and before the erased
// inputs' rows are deleted, a name (or alias) of a surviving entity that an erased input's text states and no
// remaining input mentioning the entity states is dropped: the entity takes an alias those inputs state, or a
// neutral label (`unnamed person`) that matches nothing later. The copies in the remaining rows (candidates,
// reviews' edits, attribute values, instructions, uncertainties, commit records, the pipeline's rows (its TextColumns),
// stored idempotent answers, other entities' names such as "Quorvane's boat") are rewritten to the entity's
// new name, as whole words, and the entity's facts lose their
// vectors (the backfill embeds them again under the new name). Generated search columns follow by themselves.
import { Prisma, type Tx } from "@recall/db";
import { identityKey } from "../core/identity";
import type { TextColumn } from "../core/pipeline-records";
import type { InputIds } from "./erasure-inputs";

interface Named {
  id: string;
  name: string;
  aliases: string[];
  type: string;
}

interface Rename {
  entityId: string;
  /** The names the entity loses (as stored), each rewritten to `to` wherever it was copied. */
  copies: string[];
  to: string;
}

export interface CopiedNamesOutcome {
  renamed: number;
  rewritten: number;
}

const byContext = (table: string, column: string, json: boolean): TextColumn => ({
  table,
  column,
  json,
  rows: (contextId) => Prisma.sql`context_id = ${contextId}::uuid`,
});

/** Where extraction copies an entity's name to, beside the entity row: table, column, whether JSON, which rows. */
const COPIES: readonly TextColumn[] = [
  byContext("knowledge_candidates", "payload", true),
  byContext("knowledge_candidates", "validation_errors", true),
  byContext("reviews", "edit", true),
  byContext("reviews", "note", false),
  byContext("attributes", "value", false),
  byContext("assertions", "object_literal", false),
  byContext("instructions", "label", false),
  byContext("instructions", "description", false),
  byContext("uncertainties", "about", false),
  byContext("uncertainties", "reason", false),
  byContext("commit_records", "refs", true),
];

/** Renames the surviving entities whose names only erased inputs stated, and rewrites the copies; call before the inputs go. */
export async function forgetCopiedNames(
  tx: Tx,
  contextId: string,
  ids: InputIds,
  entityIds: readonly string[],
  pipelineColumns: readonly TextColumn[],
): Promise<CopiedNamesOutcome> {
  const entities = await tx.$queryRaw<Named[]>`
    SELECT id::text, name, aliases, type FROM entities WHERE context_id = ${contextId}::uuid AND id = ANY(${[...entityIds]}::uuid[])`;
  const stated = await statedByErased(tx, ids, [...new Set(entities.flatMap((e) => [e.name, ...e.aliases]))]);
  if (stated.size === 0) return { renamed: 0, rewritten: 0 };
  const renames: Rename[] = [];
  for (const entity of entities) {
    const own = [entity.name, ...entity.aliases].filter((n) => stated.has(n.toLowerCase()));
    if (own.length === 0) continue;
    const kept = await statedByMentions(tx, entity.id, own);
    const copies = own.filter((n) => !kept.has(n.toLowerCase()));
    if (copies.length > 0) renames.push(await rename(tx, entity, copies));
  }
  let rewritten = 0;
  for (const r of renames) rewritten += await rewriteCopies(tx, contextId, r, [...COPIES, ...pipelineColumns]);
  return { renamed: renames.length, rewritten };
}

const lowerSet = (rows: { n: string }[]) => new Set(rows.map((r) => r.n.toLowerCase()));

/** Which of the names an erased input's text (or a turn's given speaker) states as whole words, lower-cased. */
async function statedByErased(tx: Tx, ids: InputIds, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const patterns = names.map((n) => wordPattern(n, false));
  return lowerSet(
    await tx.$queryRaw<{ n: string }[]>`SELECT n FROM unnest(${names}::text[], ${patterns}::text[]) AS x(n, p) WHERE
      EXISTS (SELECT 1 FROM turns t WHERE t.id = ANY(${ids.turn}::uuid[]) AND concat_ws(' ', t.content, t.attachment_text, t.speaker) ~* p)
      OR EXISTS (SELECT 1 FROM documents d WHERE d.id = ANY(${ids.document}::uuid[]) AND d.text ~* p)
      OR EXISTS (SELECT 1 FROM fact_writes f WHERE f.id = ANY(${ids.fact_write}::uuid[]) AND f.text ~* p)`,
  );
}

/** Which of the names a remaining input that mentions the entity states (the erased inputs' mentions are gone by now). */
async function statedByMentions(tx: Tx, entityId: string, names: string[]): Promise<Set<string>> {
  const patterns = names.map((n) => wordPattern(n, false));
  return lowerSet(
    await tx.$queryRaw<{ n: string }[]>`SELECT n FROM unnest(${names}::text[], ${patterns}::text[]) AS x(n, p) WHERE EXISTS (
      SELECT 1 FROM entity_mentions m LEFT JOIN turns t ON t.id = m.turn_id LEFT JOIN documents d ON d.id = m.document_id
        LEFT JOIN fact_writes f ON f.id = m.fact_write_id
      WHERE m.entity_id = ${entityId}::uuid AND concat_ws(' ', t.content, t.attachment_text, t.speaker, d.text, f.text) ~* p)`,
  );
}

/** The entity keeps the names its remaining inputs state: an alias becomes its name, or a label no name matches. */
async function rename(tx: Tx, entity: Named, copies: string[]): Promise<Rename> {
  const aliases = entity.aliases.filter((a) => !copies.includes(a));
  const nameGone = copies.includes(entity.name);
  const to = nameGone ? (aliases[0] ?? `unnamed ${entity.type}`) : entity.name;
  // A neutral label's identity key is the entity's own: no later mention of "unnamed person" resolves to it.
  const key = nameGone && aliases.length === 0 ? `unnamed ${entity.id}` : identityKey(to);
  await tx.$executeRaw`UPDATE entities SET name = ${to}, identity_key = ${key}, aliases = ${aliases.filter((a) => a !== to)}::text[]
    WHERE id = ${entity.id}::uuid`;
  await tx.$executeRaw`DELETE FROM embeddings WHERE owner_kind = 'fact' AND owner_id IN (
    SELECT id FROM attributes WHERE entity_id = ${entity.id}::uuid
    UNION ALL SELECT id FROM relations WHERE subject_id = ${entity.id}::uuid OR object_id = ${entity.id}::uuid)`;
  return { entityId: entity.id, copies, to };
}

const WORD = /[\p{L}\p{N}_]/u;
const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");

/** A pattern (Postgres ARE, used with ~* and 'gi') for the name as a whole word: `\y` is a word boundary. */
function wordPattern(name: string, json: boolean): string {
  const edge = (c: string | undefined) => (c && WORD.test(c) ? "\\y" : "");
  return `${edge(name[0])}${escapeRegex(json ? JSON.stringify(name).slice(1, -1) : name)}${edge(name.at(-1))}`;
}

/** The same whole-word match in JavaScript, for the names rewritten here. */
function wordRegex(name: string): RegExp {
  const before = WORD.test(name[0] ?? "") ? "(?<![\\p{L}\\p{N}_])" : "";
  const after = WORD.test(name.at(-1) ?? "") ? "(?![\\p{L}\\p{N}_])" : "";
  return new RegExp(`${before}${escapeRegex(name)}${after}`, "giu");
}

/** In a regexp_replace replacement, a backslash is special. */
const replacement = (to: string, json: boolean) => (json ? JSON.stringify(to).slice(1, -1) : to).replace(/\\/g, "\\\\");

async function rewriteCopies(tx: Tx, contextId: string, r: Rename, columns: readonly TextColumn[]): Promise<number> {
  let rewritten = 0;
  for (const copy of r.copies) {
    for (const { table, column, json, rows } of columns) {
      const pattern = wordPattern(copy, json);
      const value = json
        ? Prisma.sql`regexp_replace(${Prisma.raw(`"${column}"`)}::text, ${pattern}, ${replacement(r.to, json)}, 'gi')::jsonb`
        : Prisma.sql`regexp_replace(${Prisma.raw(`"${column}"`)}, ${pattern}, ${replacement(r.to, json)}, 'gi')`;
      rewritten += await tx.$executeRaw`UPDATE ${Prisma.raw(`"${table}"`)} SET ${Prisma.raw(`"${column}"`)} = ${value}
        WHERE ${rows(contextId)} AND ${Prisma.raw(`"${column}"`)}::text ~* ${pattern}`;
    }
    rewritten += await rewriteElsewhere(tx, contextId, copy, r.to);
    rewritten += await renameContaining(tx, contextId, r.entityId, copy, r.to);
  }
  return rewritten;
}

/** Other entities whose name or alias holds the lost name ("Quorvane's dog"): renamed alike, with their identity key. */
async function renameContaining(tx: Tx, contextId: string, renamed: string, copy: string, to: string): Promise<number> {
  const pattern = wordPattern(copy, false);
  const rows = await tx.$queryRaw<Named[]>`SELECT id::text, name, aliases, type FROM entities
    WHERE context_id = ${contextId}::uuid AND id <> ${renamed}::uuid AND (name ~* ${pattern} OR array_to_string(aliases, ' ') ~* ${pattern})`;
  const swap = (text: string) => text.replace(wordRegex(copy), () => to);
  for (const e of rows) {
    await tx.$executeRaw`UPDATE entities SET name = ${swap(e.name)}, identity_key = ${identityKey(swap(e.name))},
      aliases = ${e.aliases.map(swap)}::text[] WHERE id = ${e.id}::uuid`;
  }
  return rows.length;
}

/** Stored idempotent answers (scope `context:<id>`). */
async function rewriteElsewhere(tx: Tx, contextId: string, copy: string, to: string): Promise<number> {
  const json = wordPattern(copy, true);
  return tx.$executeRaw`UPDATE idempotency_keys
    SET response_body = regexp_replace(response_body::text, ${json}, ${replacement(to, true)}, 'gi')::jsonb
    WHERE scope = ${`context:${contextId}`} AND response_body::text ~* ${json}`;
}
