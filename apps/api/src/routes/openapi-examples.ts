// Request and response examples of the main operations, published in the OpenAPI document
// (and so on /docs). One conversation runs through them: Alice, CTO at Acme, who wants
// answers in bullet points. openapi.test.ts parses each with its route's own schema.

const ids = {
  context: "f5a6b7c8-d9e0-4f1a-8b2c-4d5e6f7a8b9c",
  session: "5b0f3c2e-8a41-4d7e-9c1a-2f6e7d8b9a10",
  turn: "0c9a7e61-3f2b-4b8d-a5e4-6d1c2b3a4f50",
  turn2: "1d8b6f72-4e3c-4c9e-b6f5-7e2d3c4b5a61",
  turn3: "2e9c7a83-5f4d-4dae-87a6-8f3e4d5c6b72",
  batch: "9e1f2a3b-4c5d-4e6f-8a7b-0c1d2e3f4a5b",
  entityAlice: "3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d",
  entityAcme: "4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e",
  attribute: "6d5e4f3a-2b1c-4d0e-8f9a-8b7c6d5e4f3a",
  relation: "7e6f5a4b-3c2d-4e1f-9a0b-9c8d7e6f5a4b",
  assertion: "8f7a6b5c-4d3e-4f2a-8b1c-0d9e8f7a6b5c",
  assertion2: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
  instruction: "2c1d0e9f-8a7b-4c6d-ae5f-4a3b2c1d0e9f",
  factWrite: "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
  workItem: "c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e6f",
  document: "d3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a",
  retraction: "e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b",
  erasure: "f6a7b8c9-d0e1-4f2a-9b3c-5d6e7f8a9b0c",
};
const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
const at = "2026-03-02T09:15:27.412Z";
const scope = ["org=acme", "user=alice"];
const alice = { id: ids.entityAlice, name: "Alice Chen", type: "person" };
const acme = { id: ids.entityAcme, name: "Acme", type: "organization" };
const held = { memory_category: "identity", confidence: 0.92, valid_from: at, valid_to: null };

const diff = {
  entities: [
    { name: "Alice Chen", type: "person", memory_category: "identity" },
    { name: "Acme", type: "organization", memory_category: "knowledge" },
  ],
  attributes: [{ entity: "Alice Chen", key: "role", value: "CTO", memory_category: "identity" }],
  relations: [{ subject: "Alice Chen", verb: "works_at", object: "Acme", memory_category: "identity" }],
  instructions: [{ label: "format", description: "Always answer in bullet points" }],
  uncertainties: [],
};

export const EXAMPLES = {
  turn: {
    request: {
      role: "user",
      name: "Alice Chen",
      content: "I'm Alice Chen, CTO at Acme. Always answer in bullet points.",
      scope,
    },
    response: {
      turn_id: ids.turn,
      diff,
      extraction: { status: "committed", stage: "heuristic" },
      trace_id: trace,
    },
  },
  batch: {
    request: {
      turns: [
        { role: "user", content: "We moved the payments service to Kubernetes in January.", occurred_at: "2026-02-03T10:00:00Z", scope },
        { role: "assistant", content: "Noted: payments runs on Kubernetes since January.", occurred_at: "2026-02-03T10:00:05Z", scope },
        {
          role: "user",
          content: "Here is the new dashboard.",
          attachments: [{ kind: "image", caption: "Grafana dashboard of the payments cluster", mime_type: "image/png" }],
          occurred_at: "2026-02-03T10:01:00Z",
          scope,
        },
      ],
    },
    response: {
      batch_id: ids.batch,
      turn_ids: [ids.turn, ids.turn2, ids.turn3],
      status_url: `/api/v1/${ids.context}/sessions/${ids.session}/turn-batches/${ids.batch}`,
      trace_id: trace,
    },
  },
  profile: {
    response: {
      entities: [
        {
          ...alice,
          memory_category: "identity",
          aliases: ["Alice"],
          attributes: [{ id: ids.attribute, key: "role", value: "CTO", ...held }],
          relations: [{ id: ids.relation, predicate: "works_at", object: acme, ...held }],
        },
      ],
      instructions: [{ id: ids.instruction, label: "format", description: "Always answer in bullet points", scope, created_at: at }],
      next_cursor: null,
    },
  },
  query: {
    request: { query: "what does Alice do at Acme", scope: { org: "acme", user: "alice" }, limit: 5 },
    response: {
      query: "what does Alice do at Acme",
      results: [
        {
          kind: "attribute",
          id: ids.attribute,
          text: "Alice Chen role CTO",
          truncated: false,
          score: 0.0328,
          raw_score: 0.0759,
          ranks: { full_text: 1, vector: 1 },
          link: { fact_id: ids.attribute, assertion_id: ids.assertion, entity_id: ids.entityAlice },
        },
        {
          kind: "turn",
          id: ids.turn,
          text: "I'm Alice Chen, CTO at Acme. Always answer in bullet points.",
          truncated: false,
          score: 0.0323,
          raw_score: 0.0607,
          ranks: { full_text: 2, vector: 2 },
          link: { turn_id: ids.turn, session_id: ids.session, seq: 1 },
        },
      ],
      retrievers: [
        { name: "full_text", enabled: true, ran: true },
        { name: "vector", enabled: true, ran: true, model: "openai:text-embedding-3-small", index: "pgvector_hnsw" },
      ],
    },
  },
  facts: {
    request: {
      scope,
      attributes: [{ entity: "Alice Chen", entity_type: "person", key: "timezone", value: "Europe/Berlin", memory_category: "identity" }],
      relations: [{ subject: "Alice Chen", verb: "works_at", object: "Acme", object_type: "organization", memory_category: "identity" }],
    },
    response: {
      fact_write_id: ids.factWrite,
      work_item_id: ids.workItem,
      trace_id: trace,
      committed: {
        entity_ids: [ids.entityAlice, ids.entityAcme],
        assertion_ids: [ids.assertion, ids.assertion2],
        attribute_ids: [ids.attribute],
        relation_ids: [ids.relation],
        instruction_ids: [],
        uncertainty_ids: [],
      },
      truth_maintenance: {
        status: "applied",
        superseded: [],
        revoked_instruction_ids: [],
        conflict_uncertainty_ids: [],
        resolved_uncertainty_ids: [],
      },
    },
  },
  document: {
    request: {
      text: "# Payments\n\nThe payments service runs on Kubernetes. Priya Rao owns it.",
      format: "markdown",
      scope: ["org=acme"],
      source: { type: "wiki", name: "Payments runbook", external_id: "wiki:payments" },
    },
    response: {
      document_id: ids.document,
      trace_id: trace,
      queued: true,
      duplicate: false,
      format: "markdown",
      previous_version_id: null,
    },
  },
  retract: {
    request: { reason: "the user asked to forget this conversation" },
    response: {
      retraction_id: ids.retraction,
      pending: false,
      source_type: "turn",
      source_id: ids.turn,
      retracted: { assertions: 3, attributes: 1, relations: 1, instructions: 1, uncertainties: 0, entities: 0 },
      reopened: { facts: 0, instructions: 0, uncertainties: 0 },
    },
  },
  erase: {
    request: { turn_ids: [ids.turn] },
    response: {
      erasure_id: ids.erasure,
      kind: "inputs",
      complete: true,
      erased: { turn_ids: [ids.turn], document_ids: [], fact_write_ids: [], session_ids: [] },
      already_erased: { turn_ids: [], document_ids: [], fact_write_ids: [], session_ids: [] },
      counts: {
        turns: 1,
        assertions: 3,
        attributes: 1,
        relations: 1,
        instructions: 1,
        knowledge_candidates: 5,
        entities: 0,
        work_items: 4,
      },
      hash: "9f2c4e1a7b3d5f6e8a0c2b4d6f8e0a1c3b5d7f9e1a2c4b6d8f0e2a4c6b8d0f1e",
      erased_at: at,
    },
  },
};
