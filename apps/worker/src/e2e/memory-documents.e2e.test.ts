// Documents from validation on through the real service (queues, relay, workers on
// real Postgres and Redis), with their candidates staged as extraction would stage
// them: two documents that disagree become an uncertainty and a clarifying turn
// resolves it; contested entity names go to the strong model through the real
// OpenAI SDK against the local wire-protocol server.
import { readProfile, readState } from "@recall/memory";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { newSession, sendExtractedDocument, sendTurn, settled, startWorkerHarness, type WorkerHarness } from "../testing/worker-harness";

let h: WorkerHarness;
let llm: FakeLlmServer;
let contextId: string;
beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startWorkerHarness({ RECALL_STRONG_MODEL: "openai-compatible:test-strong", OPENAI_BASE_URL: llm.openaiBaseUrl });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});
beforeEach(async () => {
  contextId = (await h.db.context.create({ data: { name: "documents" } })).id;
});

const person = (name: string) => ({ name, type: "person", memory_category: "identity" as const, aliases: [], confidence: 0.9 });

function fact(entity: string, key: string, value: string, quote: string) {
  return { entity, key, value, memory_category: "identity" as const, evidence: { quote }, confidence: 0.9, significance: "high" as const };
}

/** What POST /state serves the (unscoped) reader: its role facts, and the open unknowns. */
async function roles() {
  const state = await readState(h.db, { contextId, scope: [], includeResolved: false, limit: 100 });
  const facts = state.facts.filter((f) => f.kind === "attribute" && f.key === "role");
  return { facts, values: facts.map((f) => f.kind === "attribute" && f.value), unknowns: state.unknowns };
}

async function committedDocument(text: string, at: Date, diff: Parameters<typeof sendExtractedDocument>[1]["diff"]) {
  const id = await sendExtractedDocument(h, { contextId, text, at, diff });
  const items = await settled(h, id);
  expect([items.validate_artifacts.status, items.commit_artifacts.status, items.truth_maintenance.status]).toEqual([
    "succeeded",
    "succeeded",
    "succeeded",
  ]);
  return id;
}

test("two documents disagreeing become an uncertainty; a clarifying turn resolves it", async () => {
  for (const [role, at] of [
    ["CTO", "2025-01-10"],
    ["CEO", "2025-02-10"],
  ]) {
    const text = `Alice Chen is the ${role} of Acme.`;
    await committedDocument(text, new Date(at!), {
      entities: [person("Alice Chen")],
      attributes: [fact("Alice Chen", "role", role!, text.slice(0, -1))],
    });
  }
  const alice = (await readProfile(h.db, { contextId, scope: [], limit: 10 })).entities.find((e) => e.name === "Alice Chen");
  const contested = await roles();
  expect(contested.values).toEqual(["CTO", "CEO"]);
  expect(contested.unknowns).toEqual([expect.objectContaining({ entity_id: alice!.id, key: "role", resolved: false })]);
  // State names the entity and key; which values the uncertainty is about is only stored.
  const open = await h.db.uncertainty.findFirstOrThrow({ where: { contextId } });
  expect([...open.factIds].sort()).toEqual(contested.facts.map((f) => f.id).sort());

  // Through every stage, read by the heuristic stage: the speaker is the known Alice Chen.
  const turnId = await sendTurn(h, {
    contextId,
    session: await newSession(h, contextId),
    content: "Actually I'm CEO now.",
    at: new Date("2025-03-01"),
  });
  expect((await settled(h, turnId)).truth_maintenance.status).toBe("succeeded");

  const uncertainty = await h.db.uncertainty.findFirstOrThrow({ where: { contextId } });
  expect(uncertainty.resolved).toBe(true);
  // The document's CEO and the turn's are one fact to a reader (a restatement): state shows it once.
  const current = await roles();
  expect(current.values).toEqual(["CEO"]);
  expect(current.unknowns).toEqual([]);
});

test("contested entity names are put to the strong model, whose choice is used", async () => {
  llm.script(
    { json: { choice: "new", reason: "a country is not the friend" } },
    { json: { choice: "1", reason: "the chess-playing friend" } },
  );
  await committedDocument("My friend Jordan loves chess.", new Date("2025-01-10"), {
    attributes: [{ ...fact("Jordan", "likes", "chess", "Jordan loves chess"), entity_type: "person" }],
  });
  await committedDocument("Jordan borders Israel.", new Date("2025-01-11"), {
    entities: [{ name: "Jordan", type: "location", memory_category: "knowledge", aliases: [], confidence: 0.9 }],
  });
  const documentId = await committedDocument("Jordan won the chess final.", new Date("2025-01-12"), {
    attributes: [{ ...fact("Jordan", "plays", "chess", "Jordan won the chess final"), entity_type: "topic" }],
  });

  const questions = llm.requests.map((r) => JSON.stringify(r.body));
  expect(questions).toHaveLength(2);
  expect(questions.every((q) => q.includes('"model":"test-strong"') && q.includes("refers to an entity already in memory"))).toBe(true);
  expect(questions[0]).toContain("another type");
  expect(questions[1]).toContain("Jordan won the chess final");
  // Two Jordans, as GET /profile lists them: the friend holds both chess facts.
  const profile = await readProfile(h.db, { contextId, scope: [], limit: 10 });
  const jordans = profile.entities.filter((e) => e.name === "Jordan").sort((a, b) => a.type.localeCompare(b.type));
  expect(jordans.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])])).toEqual([
    ["location", []],
    [
      "person",
      [
        ["likes", "chess"],
        ["plays", "chess"],
      ],
    ],
  ]);
  const friend = jordans[1]!;
  const commit = await h.db.workItem.findFirstOrThrow({ where: { queue: "commit_artifacts", subjectId: documentId } });
  // Beside what the item started with (a document's later stages are background work).
  expect(commit.payload).toEqual({
    background: true,
    disambiguations: { "jordan|topic": { entityId: friend.id, reason: "the chess-playing friend" } },
  });
  expect(commit.tokensUsed).toBeGreaterThan(0);
});
