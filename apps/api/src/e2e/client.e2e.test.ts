// @recall/client against the real service over HTTP (real Postgres, Redis and workers; the
// model is the scripted wire-protocol server): every route group through the hand-written
// surface, and problem+json answers as RecallError.
import { Readable } from "node:stream";
import { RecallClient, RecallError, RecallPipelineError } from "@recall/client";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;
let admin: RecallClient;
let recall: RecallClient;
let contextId: string;

const ALICE = { org: "acme", user: "alice" };
const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
  server = await listen(h.app);
  admin = new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY });
  const created = await admin.admin.contexts.create({ name: "acme" });
  contextId = created.context_id;
  recall = admin.withContext(created.context_id, created.api_key);
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
});

test("health, and the admin routes: keys issued, listed, rotated and revoked", async () => {
  expect(await admin.health()).toEqual({ status: "ok" });
  const issued = await admin.admin.keys.issue(contextId);
  const other = admin.withContext(contextId, issued.api_key);
  expect(await other.sessions.create()).toEqual({ session_id: expect.any(String) });

  const rotated = await admin.admin.keys.rotate(contextId, issued.key_id);
  expect(rotated).toMatchObject({ api_key: expect.stringMatching(/^rk_/) });
  await expect(other.sessions.create()).rejects.toMatchObject({ name: "RecallError", status: 401 });
  const keys = await admin.admin.keys.list(contextId);
  expect(keys.keys.map((k) => k.active)).toEqual([true, false, true]);

  const fresh = keys.keys[2]!;
  expect(await admin.admin.keys.revoke(contextId, fresh.key_id)).toMatchObject({ key_id: fresh.key_id, active: false });
});

test("the agent loop: a turn, then profile, state, query, provenance, history and the session's turns", async () => {
  const { session_id } = await recall.sessions.create({ metadata: { channel: "test" } });
  const turn = await recall.turns.post(session_id, {
    role: "user",
    content: "I'm Alice, CTO at Acme. Always respond in bullet points.",
    scope: ["org=acme", "user=alice"],
  });
  expect(turn.extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  // A 202 may also be a wait: false acceptance (no diff); this turn waited.
  if (!("diff" in turn)) throw new Error("the turn was answered without its diff");
  expect(turn.diff.attributes).toEqual([expect.objectContaining({ entity: "Alice", key: "role", value: "CTO" })]);

  const profile = await recall.profile(ALICE);
  const alice = profile.entities.find((e) => e.name === "Alice")!;
  expect(alice.attributes).toEqual([expect.objectContaining({ key: "role", value: "CTO" })]);
  expect(profile.instructions.map((i) => i.description)).toEqual([expect.stringMatching(/bullet points/i)]);
  expect((await recall.profile({ org: "acme" })).entities).toEqual([]);

  const state = await recall.state({ scope: ALICE });
  expect(state.facts).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "attribute", key: "role", value: "CTO" })]));

  const found = await recall.query({ query: "what does Alice do at Acme", scope: ["org=acme", "user=alice"], limit: 5 });
  expect(found.results.map((r) => r.kind)).toEqual(expect.arrayContaining(["attribute", "turn"]));

  const packed = await recall.context({ message: "What does Alice do at Acme?", scope: ALICE, max_tokens: 200 });
  expect(packed.tokens).toBeLessThanOrEqual(200);
  expect(packed.sections.instructions.map((i) => i.description)).toEqual([expect.stringMatching(/bullet points/i)]);
  expect(packed.sections.facts).toEqual(expect.arrayContaining([expect.objectContaining({ predicate: "role", value: "CTO" })]));
  // The turn the fact was read from is packed and says it, so the fact is in sections but its words are paid once.
  expect(packed.text).toContain("I'm Alice, CTO at Acme.");
  expect(packed.text).not.toContain("Alice: role = CTO");

  const provenance = await recall.facts.provenance(alice.attributes[0]!.id, { scope: ALICE });
  expect(provenance.source).toMatchObject({ type: "turn", session_id });
  expect(provenance.span).toMatchObject({ text: expect.stringContaining("CTO at Acme") });

  const history = await recall.entities.history(alice.id, { scope: ALICE });
  expect(history.values).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ kind: "attribute", key: "role", value: "CTO", current: true }),
      expect.objectContaining({ kind: "relation", predicate: "works_at", object: expect.objectContaining({ name: "Acme" }) }),
    ]),
  );

  const page = await recall.turns.list(session_id, { scope: ALICE, limit: 10 });
  expect(page.turns.map((t) => t.turn_id)).toEqual([turn.turn_id]);
  expect(page.next_cursor).toBeNull();
});

test("direct writes, and delete by source for a write and a turn", async () => {
  const written = await recall.facts.write({
    scope: { org: "acme", user: "carol" },
    attributes: [{ entity: "Carol", entity_type: "person", key: "role", value: "CFO", memory_category: "identity" }],
  });
  if (!("committed" in written)) throw new Error(`the write was left to a worker: ${JSON.stringify(written)}`);
  expect(written.committed.attribute_ids).toHaveLength(1);
  const undone = await recall.retractions.factWrite(written.fact_write_id, { reason: "entered by mistake" });
  expect(undone).toMatchObject({ source_type: "fact_write", retracted: { attributes: 1 } });

  const { session_id } = await recall.sessions.create();
  const turn = await recall.turns.post(session_id, { role: "user", content: "I'm Dana, VP at Initech.", scope: ["org=initech"] });
  if (!("diff" in turn)) throw new Error("the turn was answered without its diff");
  expect(turn.diff.attributes).toEqual([expect.objectContaining({ entity: "Dana", value: "VP" })]);
  const retraction = await recall.retractions.turn(turn.turn_id, { reason: "user asked to forget it" });
  expect(retraction.retracted.attributes).toBe(1);
  expect((await recall.profile({ org: "initech" })).entities).toEqual([]);
});

test("erasure: a turn erased with a receipt read back, and a whole context erased by the admin", async () => {
  const { session_id } = await recall.sessions.create();
  const turn = await recall.turns.post(session_id, { role: "user", content: "I'm Omar, CTO at Massive Dynamic.", scope: ["org=md"] });
  const receipt = await recall.erasures.create({ turn_ids: [turn.turn_id] });
  expect(receipt).toMatchObject({ kind: "inputs", erased: { turn_ids: [turn.turn_id] }, counts: { turns: 1 } });
  expect(await recall.erasures.get(receipt.erasure_id)).toEqual(receipt);
  expect((await recall.profile({ org: "md" })).entities).toEqual([]);

  const leaving = await admin.admin.contexts.create({ name: "leaving" });
  const erased = await admin.admin.erasures.eraseContext(leaving.context_id);
  expect(erased).toMatchObject({ kind: "context", counts: { contexts: 1, api_keys: 1 } });
  expect(await admin.admin.erasures.get(leaving.context_id, erased.erasure_id)).toEqual(erased);
});

test("export as text and as a stream, imported into a new context with nothing created twice", async () => {
  const { session_id } = await recall.sessions.create();
  await recall.turns.post(session_id, { role: "user", content: "I'm Nadia, CTO at Soylent.", scope: ["org=soylent"] });
  const text = await recall.portability.exportText({ scope: { org: "soylent" } });
  const lines = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind: string; content?: string });
  expect([lines[0]!.kind, lines[lines.length - 1]!.kind]).toEqual(["header", "end"]);
  expect(lines.some((l) => l.content === "I'm Nadia, CTO at Soylent.")).toBe(true);
  const streamed = await new Response(await recall.portability.exportStream({ scope: { org: "soylent" } })).text();
  expect(streamed.split("\n").length).toBe(text.split("\n").length);

  const copy = await admin.admin.contexts.create({ name: "copy" });
  const target = admin.withContext(copy.context_id, copy.api_key);
  const first = await target.portability.import(text);
  expect(first.counts.turn).toEqual({ read: 1, created: 1 });
  const again = await target.portability.import(new TextEncoder().encode(text));
  expect(again.counts.turn).toEqual({ read: 1, created: 0 });
  // Streamed straight from one server's export into another context, in chunks.
  const piped = await admin.admin.contexts.create({ name: "piped" });
  const pipedTarget = admin.withContext(piped.context_id, piped.api_key);
  const streamedIn = await pipedTarget.portability.importStream(await recall.portability.exportStream({ scope: { org: "soylent" } }));
  expect(streamedIn.counts.turn).toEqual({ read: 1, created: 1 });
  const chunks = Readable.toWeb(
    Readable.from([text.slice(0, 10), text.slice(10)].map((c) => Buffer.from(c))),
  ) as ReadableStream<Uint8Array>;
  expect((await pipedTarget.portability.importStream(chunks)).counts.turn).toEqual({ read: 1, created: 0 });
  const badStream = Readable.toWeb(Readable.from([Buffer.from("not json\n")])) as ReadableStream<Uint8Array>;
  const refusedStream = await pipedTarget.portability.importStream(badStream).catch((e: unknown) => e);
  expect(refusedStream).toBeInstanceOf(RecallError);
  expect((refusedStream as RecallError).status).toBe(400);
  const nadia = (await target.profile({ org: "soylent" })).entities.find((e) => e.name === "Nadia");
  expect(nadia?.attributes).toEqual([expect.objectContaining({ key: "role", value: "CTO" })]);
  const refused = await target.portability
    .import('{"kind":"header","format":"recall.context-export","version":2}')
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(RecallError);
  expect((refused as RecallError).errors[0]?.field).toBe("line 1.version");
});

test("a document: posted, waited on until committed, then retracted", async () => {
  llm.script({
    json: {
      ...NO_FACTS,
      entities: [
        { name: "Recall", type: "component", memory_category: "knowledge", aliases: [] },
        { name: "Postgres", type: "platform", memory_category: "knowledge", aliases: [] },
      ],
      relations: [
        {
          ...{ subject: "Recall", verb: "stores_in", object: "Postgres", memory_category: "knowledge" },
          ...{ evidence: "Recall stores memory in Postgres", confidence: 0.9, significance: "high", valid_from: null, valid_to: null },
        },
      ],
    },
  });
  const accepted = await recall.documents.post({ text: "Recall stores memory in Postgres.", scope: ["org=acme"] });
  const status = await recall.documents.waitUntilCommitted(accepted.document_id, { timeoutMs: 60_000 });
  expect(status).toMatchObject({ state: "committed", candidates: { committed: 3 } });
  expect((await recall.documents.status(accepted.document_id)).stages.map((s) => s.status)).toEqual(expect.arrayContaining(["succeeded"]));
  const retraction = await recall.retractions.document(accepted.document_id, { reason: "outdated" });
  expect(retraction.retracted.relations).toBe(1);
});

test("problem+json answers become RecallError with status, type, detail and per-field errors", async () => {
  const { session_id } = await recall.sessions.create();
  const invalid = await recall.turns.post(session_id, { role: "user", content: "", scope: ["org acme"] }).catch((e: unknown) => e);
  expect(invalid).toBeInstanceOf(RecallError);
  const err = invalid as RecallError;
  expect(err).toMatchObject({ status: 400, type: "https://recall.dev/problems/invalid_request", title: "invalid request", method: "POST" });
  expect(err.errors.map((e) => e.field).sort()).toEqual(["body.content", "body.scope.0"]);
  expect(err.fieldError("body.content")).toBe("must not be empty");
  expect(err.detail).toContain("body.content");

  const missing = await recall.turns.list("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
  expect(missing).toMatchObject({ name: "RecallError", status: 404, type: "https://recall.dev/problems/not_found" });
  const wrongKey = new RecallClient({ baseUrl: server.url, contextId, apiKey: "rk_wrong" });
  await expect(wrongKey.profile(ALICE)).rejects.toMatchObject({ status: 401 });
  await expect(new RecallClient({ baseUrl: server.url }).profile(ALICE)).rejects.toThrow(/needs a context/);
});

test("failed work: waitUntilCommitted says why, work items are listed and retried, and finished work is not", async () => {
  const created = await admin.admin.contexts.create({ name: "tight", config: { max_wall_ms: 300 } });
  const tight = admin.withContext(created.context_id, created.api_key);
  llm.script({ json: NO_FACTS, delayMs: 1_000 });
  const accepted = await tight.documents.post({ text: "Kestrel is the billing service. The ledger keeps entries in Postgres." });
  const failure = await tight.documents.waitUntilCommitted(accepted.document_id).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(RecallPipelineError);
  expect((failure as RecallPipelineError).document.state).toBe("failed");
  expect((failure as Error).message).toMatch(/budget/);

  const dead = await tight.workItems.list({ status: "dead" });
  expect(dead.work_items).toEqual([expect.objectContaining({ queue: "extract_assertions", status: "dead" })]);
  llm.script({ json: NO_FACTS, delayMs: 1_000 });
  const retried = await tight.workItems.retry(dead.work_items[0]!.work_item_id);
  expect(retried).toMatchObject({ work_item_id: dead.work_items[0]!.work_item_id, status: "queued" });
  const again = await tight.documents.waitUntilCommitted(accepted.document_id).catch((e: unknown) => e);
  expect((again as RecallPipelineError).document.stages[0]).toMatchObject({ status: "dead", attempts: 2, error: { class: "budget" } });

  // Usage counts the model calls this context made (the failed document's budget-bound calls among them).
  const spent = await tight.usage({ group_by: "model" });
  expect(spent.totals.calls).toBeGreaterThanOrEqual(1);
  expect(spent.groups.map((g) => g.key)).toEqual([expect.stringContaining(":")]);

  const done = (await recall.workItems.list({ status: "succeeded", limit: 1 })).work_items[0]!;
  await expect(recall.workItems.retry(done.work_item_id)).rejects.toMatchObject({
    status: 409,
    type: "https://recall.dev/problems/not_retryable",
  });
});

test("review before commit: held candidates listed, one approved edited, one rejected, the rest decided in bulk", async () => {
  const created = await admin.admin.contexts.create({ name: "reviewed", config: { review: "required" } });
  const reviewed = admin.withContext(created.context_id, created.api_key);
  const { session_id } = await reviewed.sessions.create();
  const turn = await reviewed.turns.post(session_id, { role: "user", content: "I'm Alice, CTO at Acme. Always respond in bullet points." });
  expect(turn.extraction).toMatchObject({ status: "pending_review" });
  const held = (await reviewed.reviews.list({ turn_id: turn.turn_id })).reviews;
  expect(held.map((r) => [r.status, r.source.turn_id])).toEqual(held.map(() => ["pending", turn.turn_id]));
  expect((await reviewed.profile({})).entities).toEqual([]);
  const role = held.find((r) => r.kind === "attribute")!;
  const instruction = held.find((r) => r.kind === "instruction")!;
  expect(await reviewed.reviews.get(role.review_id)).toEqual(role);
  const firstPage = await reviewed.reviews.list({ turn_id: turn.turn_id, limit: 1 });
  expect(firstPage.reviews).toEqual(held.slice(0, 1));
  expect((await reviewed.reviews.list({ turn_id: turn.turn_id, cursor: firstPage.next_cursor! })).reviews).toEqual(held.slice(1));

  const approved = await reviewed.reviews.approve(role.review_id, { edit: { value: "Chief Technology Officer" }, note: "spelled out" });
  expect(approved).toMatchObject({ status: "approved", note: "spelled out", edit: { value: { to: "Chief Technology Officer" } } });
  expect(await reviewed.reviews.reject(instruction.review_id, { note: "not a standing rule" })).toMatchObject({ status: "rejected" });
  await expect(reviewed.reviews.approve(instruction.review_id)).rejects.toMatchObject({ name: "RecallError", status: 409 });
  const blank = await reviewed.reviews.approve(role.review_id, { edit: { value: " " } }).catch((e: unknown) => e);
  expect((blank as RecallError).errors.map((e) => e.field)).toEqual(["body.edit.value"]);
  const committed = await waitFor(async () => {
    const now = await reviewed.reviews.get(role.review_id);
    return now.status === "committed" ? now : undefined;
  });
  expect(committed.candidate).toMatchObject({ value: "Chief Technology Officer" });
  expect(JSON.stringify(await reviewed.profile({}))).toContain("Chief Technology Officer");

  const other = await reviewed.turns.post(session_id, { role: "user", content: "I'm Bo, CFO at Initech." });
  const pending = (await reviewed.reviews.list({ turn_id: other.turn_id })).reviews.map((r) => r.review_id);
  expect(pending.length).toBeGreaterThan(1);
  const once = await reviewed.reviews.bulkApprove({ filter: { turn_id: other.turn_id }, limit: 1 });
  expect(once).toEqual({ decided: pending.slice(0, 1), unchanged: [], refused: [], remaining: pending.length - 1 });
  const rest = await reviewed.reviews.bulkReject({ filter: { turn_id: other.turn_id }, note: "not needed" });
  expect(rest).toEqual({ decided: pending.slice(1), unchanged: [], refused: [], remaining: 0 });
  const named = await reviewed.reviews.bulkReject({ review_ids: pending });
  expect(named).toMatchObject({
    decided: [],
    unchanged: pending.slice(1),
    refused: [{ review_id: pending[0], status: expect.any(String) }],
  });
  const neither = await reviewed.reviews.bulkApprove({}).catch((e: unknown) => e);
  expect((neither as RecallError).fieldError("body.review_ids")).toMatch(/review_ids or filter/);
});
