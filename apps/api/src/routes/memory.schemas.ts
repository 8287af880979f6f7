// Response shapes of the memory read routes (profile, state, query, provenance, history, instructions).
import { z } from "zod";
import { SEARCH_KINDS, type readInstructionHistory } from "@recall/memory";
import { NextCursor } from "../http/pagination";
import { Timestamp, WorkItemView } from "../views/work-item-view";

export const Category = z.enum(["identity", "knowledge", "context"]);
const Entity = z.object({ id: z.uuid(), name: z.string(), type: z.string() });

/** Set on a view whose names or values were clipped to the read caps (docs/limits.md); absent otherwise. */
const Truncated = {
  truncated: z.literal(true).optional().describe("a name or value here was cut to the read caps (docs/limits.md)"),
};

const FactCommon = {
  id: z.uuid(),
  memory_category: Category,
  confidence: z.number(),
  scope: z.array(z.string()),
  valid_from: Timestamp,
  valid_to: Timestamp.nullable(),
  superseded_by: z.uuid().nullable().describe("the value that replaced this one"),
  recorded_at: Timestamp,
  retracted_at: Timestamp.nullable(),
  assertion_id: z.uuid().describe("the evidence; follow it with GET /facts/{id}/provenance"),
  ...Truncated,
};

const AttributeFact = z.object({ kind: z.literal("attribute"), entity: Entity, key: z.string(), value: z.string(), ...FactCommon });
const RelationFact = z.object({ kind: z.literal("relation"), subject: Entity, predicate: z.string(), object: Entity, ...FactCommon });

export const Fact = z.discriminatedUnion("kind", [AttributeFact, RelationFact]);

export const Instruction = z.object({
  id: z.uuid(),
  label: z.string(),
  description: z.string(),
  scope: z.array(z.string()),
  created_at: Timestamp,
  ...Truncated,
});

export const Unknown = z.object({
  id: z.uuid(),
  about: z.string(),
  reason: z.string(),
  resolved: z.boolean(),
  resolved_at: Timestamp.nullable(),
  entity_id: z.uuid().nullable(),
  key: z.string().nullable(),
  turn_id: z.uuid().nullable(),
  document_id: z.uuid().nullable(),
  created_at: Timestamp,
  ...Truncated,
});

const ListsCut = z
  .literal(true)
  .optional()
  .describe(
    "the instructions or unknowns were cut to a quarter of the answer's byte budget each (GET /instructions lists every instruction)",
  );

const Timing = { memory_category: Category, confidence: z.number(), valid_from: Timestamp, valid_to: Timestamp.nullable() };

export const Profile = z.object({
  entities: z.array(
    Entity.extend({
      memory_category: Category,
      aliases: z.array(z.string()),
      attributes: z.array(z.object({ id: z.uuid(), key: z.string(), value: z.string(), ...Timing })),
      relations: z.array(z.object({ id: z.uuid(), predicate: z.string(), object: Entity, ...Timing })),
      truncated: z
        .literal(true)
        .optional()
        .describe(
          "names or values were clipped, or not every attribute, relation or alias fitted: GET /entities/{id}/history has them all",
        ),
    }),
  ),
  instructions: z.array(Instruction).describe("active in the reader's scope: honour them in the system prompt"),
  next_cursor: NextCursor.describe(
    "pass as `cursor` for the next page; null on the last page. A page ends early when the next entity would take the answer past 1 MB",
  ),
  truncated: ListsCut,
});

export const State = z.object({
  as_of: Timestamp,
  recorded_as_of: Timestamp.nullable(),
  facts: z.array(Fact),
  instructions: z.array(Instruction).optional().describe("first page only"),
  unknowns: z.array(Unknown).optional().describe("first page only"),
  next_cursor: NextCursor.describe(
    "pass as `cursor` for the next page; null on the last page. A page ends early when the next fact would take the answer past 1 MB",
  ),
  truncated: ListsCut,
});

const Link = z.object({
  fact_id: z.uuid().optional(),
  assertion_id: z.uuid().optional(),
  entity_id: z.uuid().optional(),
  instruction_id: z.uuid().optional(),
  turn_id: z.uuid().optional(),
  session_id: z.uuid().optional(),
  seq: z.number().int().optional(),
  document_id: z.uuid().optional(),
  node_id: z.uuid().optional(),
  start_byte: z.number().int().optional(),
  end_byte: z.number().int().optional(),
});

const Excerpt = z.object({
  start_byte: z.number().int().describe("UTF-8 byte offset of the excerpt in the hit's whole text"),
  end_byte: z.number().int(),
  text_bytes: z
    .number()
    .int()
    .describe(
      "the whole text's length in UTF-8 bytes; for a turn or a document node add `link.start_byte` for offsets in the turn's content or the document's text",
    ),
});

const Retriever = z.object({
  name: z.string().describe("full_text or vector"),
  enabled: z.boolean().describe("configured for this service"),
  ran: z.boolean().describe("its list took part in this answer (false when disabled, or when the embedding provider failed)"),
  model: z.string().optional().describe("the embedding model, provider:model"),
  reason: z.string().optional().describe("why it is off or did not run"),
  index: z
    .enum(["pgvector_hnsw", "sql_scan"])
    .optional()
    .describe("vectors: pgvector's HNSW index, or the SQL scan where the extension is absent"),
});

export const QueryResult = z.object({
  query: z.string(),
  results: z.array(
    z.object({
      kind: z.enum(SEARCH_KINDS),
      id: z.uuid(),
      text: z.string().describe("the hit's text, or when `truncated` an excerpt of it around the query's words"),
      truncated: z.boolean().describe("`text` is an excerpt of a longer text (at most 1,000 characters, docs/limits.md)"),
      excerpt: Excerpt.optional().describe("when truncated: where the excerpt sits in the hit's whole text"),
      score: z.number().describe("reciprocal rank fusion score; comparable across kinds"),
      raw_score: z.number().describe("the first retriever's own score: ts_rank, or cosine similarity for a vector-only hit"),
      ranks: z.record(z.string(), z.number().int()).describe("position in each retriever's list"),
      link: Link,
    }),
  ),
  retrievers: z.array(Retriever),
});

export const Provenance = z.object({
  fact: z.object({ kind: z.enum(["attribute", "relation", "assertion", "instruction"]), id: z.uuid() }),
  assertion: z
    .object({
      id: z.uuid(),
      subject_entity_id: z.uuid(),
      predicate: z.string(),
      object_entity_id: z.uuid().nullable(),
      object_literal: z.string().nullable(),
      confidence: z.number(),
      significance: z.string(),
      memory_category: Category,
      event_time: Timestamp.nullable(),
      recorded_at: Timestamp,
      retracted_at: Timestamp.nullable(),
    })
    .nullable(),
  extraction: z.object({ stage: z.string(), model: z.string().nullable(), candidate_id: z.uuid().nullable() }).nullable(),
  source: z
    .object({
      type: z.enum(["turn", "document", "fact_write"]),
      id: z.uuid(),
      session_id: z.uuid().optional(),
      seq: z.number().int().optional(),
      role: z.string().optional(),
      node: z
        .object({
          id: z.uuid(),
          ordinal: z.number().int(),
          start_byte: z.number().int(),
          end_byte: z.number().int(),
          heading_path: z.array(z.string()).describe("headings above the node, outermost first"),
          section: z.string().nullable().describe('the heading path joined: "Architecture › Storage"'),
          page: z.number().int().nullable().describe("1-based page of a PDF"),
        })
        .nullable()
        .optional(),
      document: z
        .object({
          format: z.enum(["text", "markdown", "html", "pdf"]),
          file_name: z.string().nullable(),
          content_hash: z.string().describe("sha256 of the bytes received"),
          previous_version_id: z.uuid().nullable().describe("the version of the same source this one replaced"),
        })
        .optional(),
      created_at: Timestamp,
    })
    .nullable(),
  span: z
    .object({
      start_byte: z.number().int(),
      end_byte: z.number().int(),
      quote: z.string(),
      text: z.string().nullable().describe("the source's bytes at the span, decoded; equals quote"),
    })
    .nullable(),
  trace_id: z.string().nullable(),
  work_items: z.array(WorkItemView),
});

const current = { current: z.boolean().describe("valid now and not retracted") };

export const History = z.object({
  entity: Entity.extend({ memory_category: Category, aliases: z.array(z.string()), created_at: Timestamp, ...Truncated }),
  // One object per kind, not an intersection: a JSON Schema validator (an MCP client checking
  // structuredContent) rejects every value of allOf[union, object] whose parts forbid extra fields.
  values: z.array(z.discriminatedUnion("kind", [AttributeFact.extend(current), RelationFact.extend(current)])),
  next_cursor: NextCursor,
});

export const InstructionHistory = Instruction.extend({
  active: z.boolean(),
  given_at: Timestamp,
  given_by: z.object({ turn_id: z.uuid().nullable(), document_id: z.uuid().nullable(), fact_write_id: z.uuid().nullable() }),
  revoked_at: Timestamp.nullable(),
  revoked_by_turn_id: z.uuid().nullable(),
});

export const InstructionPage = z.object({ instructions: z.array(InstructionHistory), next_cursor: NextCursor });

export function instructionView(row: Awaited<ReturnType<typeof readInstructionHistory>>["items"][number]) {
  const { given_by_turn_id, given_by_document_id, given_by_fact_write_id, ...rest } = row;
  return {
    ...rest,
    given_at: row.created_at,
    given_by: { turn_id: given_by_turn_id, document_id: given_by_document_id, fact_write_id: given_by_fact_write_id },
  };
}

const FactSource = z
  .object({
    turn_id: z.uuid().nullable(),
    document_id: z.uuid().nullable(),
    node_id: z.uuid().nullable(),
    fact_write_id: z.uuid().nullable(),
  })
  .describe("what the fact was read from: a turn, a document's node, or a direct write");

export const ContextResult = z.object({
  text: z.string().describe("ready to paste into a system prompt; empty when nothing fits"),
  tokens: z.number().int().describe("the o200k token count of `text`, at most max_tokens"),
  sections: z.object({
    instructions: z
      .array(Instruction.pick({ id: true, label: true, description: true, truncated: true }))
      .describe("active instructions, always packed first"),
    facts: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(["attribute", "relation"]),
        subject: Entity,
        predicate: z.string().describe("the attribute's key or the relation's predicate"),
        value: z.string().describe("the attribute's value, or the related entity's name"),
        object: Entity.nullable(),
        memory_category: Category,
        valid_from: Timestamp,
        valid_to: Timestamp.nullable(),
        assertion_id: z.uuid().describe("the evidence; follow it with GET /facts/{id}/provenance"),
        source: FactSource,
        ...Truncated,
      }),
    ),
    uncertainties: z
      .array(Unknown.pick({ id: true, about: true, reason: true, entity_id: true, key: true, truncated: true }))
      .describe("open, about the packed facts' entities"),
    excerpts: z.array(
      z.object({
        kind: z.enum(["turn", "document_node"]),
        id: z.uuid().describe("the turn's or the document node's id"),
        text: z.string().describe("as packed: whitespace folded, long text cut"),
        session_id: z.uuid().nullable(),
        seq: z.number().int().nullable(),
        speaker: z.string().nullable().describe("the speaker's name, or the turn's role when no name was given"),
        document_id: z.uuid().nullable(),
        said_at: Timestamp.describe("when the turn was said (its session's date), or the document received"),
        score: z.number().describe("relevance from the position in /query's ranking: 1 / (2 + position)"),
      }),
    ),
  }),
});
