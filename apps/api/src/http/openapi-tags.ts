// The tags that group operations in the OpenAPI document and on the /docs page.
/** Every tag an operation may carry, described once (the reference page groups operations by them). */
export const TAGS = {
  sessions:
    "Conversation sessions and their turns: post a turn (answered once its extraction is committed), import history in batches, follow asynchronous turns.",
  documents: "Documents (text, Markdown, HTML, PDF): stored at once and extracted asynchronously, stage by stage.",
  memory:
    "Reading memory: the profile before a system prompt, the state at an instant, search, instructions, provenance and history; direct fact writes.",
  facts: "Delete by source: retract everything learned from one turn, document or direct write, with an audit record.",
  erasure:
    "Erasure: the text of turns, documents, direct writes, sessions or a scope's inputs deleted for good from every table, with a receipt.",
  portability:
    "Export a context as versioned NDJSON (provenance, history and supersession kept) and import such an export into an empty context or the same one.",
  review:
    "Review before commit: with the context's `review` rule, extracted candidates wait as reviews until a person approves (optionally edited) or rejects them.",
  operations:
    "Work items, one per pipeline stage run: list failures, read every attempt, retry or cancel. Per context (its API key) or across contexts under /api/v1/admin (the admin key).",
  webhooks:
    "Signed pushes of this context's events (turn and document committed or failed, batches done, facts superseded, instructions revoked) to endpoints it registers, with their delivery records.",
  admin: "Tenants and their API keys (the admin key).",
  health: "Liveness, readiness and Prometheus metrics, for orchestrators and monitoring.",
  meta: "This document and the reference page rendered from it.",
} as const;

export type Tag = keyof typeof TAGS;
