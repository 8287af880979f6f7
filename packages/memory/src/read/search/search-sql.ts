// Where each kind of searchable text lives and who may see it. Tsvectors are
// stored generated columns (prisma/migrations/20261202155500_stored_search_tsvectors), so
// neither the @@ match nor ts_rank parses text per row per query; turns, document nodes
// and instructions have GIN indexes over theirs. A generated column sees only its own row,
// so a fact's tsvector is joined from its parts (the entities' names, the key and value or
// the predicate) with `||`, which keeps every lexeme and its count: an `any` query matches
// and ranks exactly as over the whole text. It does not keep word positions after a part
// that ends in a stop word ("works at"), and phrases and ts_rank of an `all` query read
// positions, so those parse a fact's whole text as before (facts are few once narrowed to
// the context, the reader's scope and the current instant by b-tree indexes).
// TEXT_SOURCES and visibleRows are shared with vector search (vector-sql.ts) and the
// embedding writer, so every retriever shows the same text under the same rules.
import { Prisma } from "@recall/db";
import { shownToReader } from "../fact-query";
import { normaliseScope, type Scope } from "../../core/scope";
import { scopeColumn } from "../../core/scope-sets";
import { turnTextSql } from "../../core/turn-text";
import type { ReaderScope } from "../read-types";
import { knownAt, validAt, visibleTo } from "../sql-fragments";
import type { SearchKind } from "./search-types";

/** Where one kind of text lives and how it reads; `f` is the row that owns the text. */
export interface TextSource {
  /** The searched text's tsvector, from stored columns (their expressions are in the migration). */
  tsv: Prisma.Sql;
  /** Only where `tsv` is joined from parts: the whole searched text, for word positions. */
  whole?: Prisma.Sql;
  /** The text a caller sees, and the text that is embedded. */
  text: Prisma.Sql;
  link: Prisma.Sql;
  from: Prisma.Sql;
  context: Prisma.Sql;
  /** The scope the text was written in, as a text[] of key=value pairs. */
  scope: Prisma.Sql;
  /** The scope rule for a reader: a row's own scope set (read/sql-fragments.ts), or a document's metadata.scope. */
  visibleTo: (reader: Scope) => Prisma.Sql;
}

const factLink = (entity: string) =>
  Prisma.sql`jsonb_build_object('fact_id', f.id, 'entity_id', ${Prisma.raw(entity)}, 'assertion_id', a.id, 'turn_id', a.turn_id,
    'document_id', a.document_id, 'start_byte', a.start_byte, 'end_byte', a.end_byte)`;

/** Documents carry their scope in metadata.scope (a list of key=value), set at ingest. */
export const documentScope = Prisma.sql`ARRAY(SELECT jsonb_array_elements_text(
  CASE WHEN jsonb_typeof(d.metadata->'scope') = 'array' THEN d.metadata->'scope' ELSE '[]'::jsonb END))`;

const ownScope = scopeColumn("f");
const ownVisible = (reader: Scope) => visibleTo("f", reader);
const documentVisible = (reader: Scope) => Prisma.sql`${documentScope} <@ ${normaliseScope(reader)}::text[]`;
const ownContext = Prisma.sql`f.context_id`;

export const TEXT_SOURCES: Record<SearchKind, TextSource> = {
  attribute: {
    tsv: Prisma.sql`s.name_tsv || f.search_tsv`,
    whole: Prisma.sql`s.name || ' ' || replace(f.key, '_', ' ') || ' ' || f.value`,
    text: Prisma.sql`s.name || ' ' || f.key || ': ' || f.value`,
    link: factLink("f.entity_id"),
    from: Prisma.sql`attributes f JOIN entities s ON s.id = f.entity_id AND s.context_id = f.context_id
      JOIN assertions a ON a.id = f.assertion_id AND a.context_id = f.context_id`,
    context: ownContext,
    scope: ownScope,
    visibleTo: ownVisible,
  },
  relation: {
    tsv: Prisma.sql`s.name_tsv || f.predicate_tsv || o.name_tsv`,
    whole: Prisma.sql`s.name || ' ' || replace(f.predicate, '_', ' ') || ' ' || o.name`,
    text: Prisma.sql`s.name || ' ' || f.predicate || ' ' || o.name`,
    link: factLink("f.subject_id"),
    from: Prisma.sql`relations f JOIN entities s ON s.id = f.subject_id AND s.context_id = f.context_id
      JOIN entities o ON o.id = f.object_id AND o.context_id = f.context_id
      JOIN assertions a ON a.id = f.assertion_id AND a.context_id = f.context_id`,
    context: ownContext,
    scope: ownScope,
    visibleTo: ownVisible,
  },
  instruction: {
    tsv: Prisma.sql`f.search_tsv`,
    text: Prisma.sql`f.label || ': ' || f.description`,
    link: Prisma.sql`jsonb_build_object('instruction_id', f.id, 'turn_id', f.turn_id, 'document_id', f.document_id,
      'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`instructions f`,
    context: ownContext,
    scope: ownScope,
    visibleTo: ownVisible,
  },
  turn: {
    tsv: Prisma.sql`f.content_tsv`,
    text: turnTextSql("f"),
    link: Prisma.sql`jsonb_build_object('turn_id', f.id, 'session_id', f.session_id, 'seq', f.seq, 'start_byte', 0, 'end_byte', octet_length(${turnTextSql("f")}))`,
    from: Prisma.sql`turns f`,
    context: ownContext,
    scope: ownScope,
    visibleTo: ownVisible,
  },
  document_node: {
    tsv: Prisma.sql`f.text_tsv`,
    text: Prisma.sql`f.text`,
    link: Prisma.sql`jsonb_build_object('document_id', d.id, 'node_id', f.id, 'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`document_nodes f JOIN documents d ON d.id = f.document_id`,
    context: Prisma.sql`d.context_id`,
    scope: documentScope,
    visibleTo: documentVisible,
  },
};

/** Facts current at `now`, active instructions, and every turn and document node: each within the reader's scope. */
export function visibleRows(kind: SearchKind, reader: ReaderScope, now: Date): Prisma.Sql {
  const source = TEXT_SOURCES[kind];
  const inScope = Prisma.sql`${source.context} = ${reader.contextId}::uuid AND ${source.visibleTo(reader.scope)}`;
  const shadowing =
    kind === "attribute" || kind === "relation"
      ? Prisma.sql` AND ${shownToReader(kind, reader.scope, now, undefined, { restatements: false })}`
      : Prisma.empty;
  return Prisma.sql`${inScope} AND ${searchableAt(kind, now)}${shadowing}`;
}

/** Whatever the reader: facts current at `now`, active instructions, every turn and document node. */
export function searchableAt(kind: SearchKind, now: Date): Prisma.Sql {
  if (kind === "attribute" || kind === "relation") return Prisma.sql`${knownAt("f", undefined)} AND ${validAt("f", now)}`;
  if (kind === "instruction") return Prisma.sql`f.active AND f.retracted_at IS NULL`;
  return Prisma.sql`TRUE`;
}
