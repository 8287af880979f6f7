// The write caps hold for what extraction makes too (issue 42): a model that answers a name, an attribute value or
// an alias list over its cap gets those candidates refused at validation, each with a reason naming the field and
// the cap, while the rest of its answer commits. Real workers, the OpenAI SDK against the local wire-protocol server.
import { WRITE_CAPS } from "@recall/contracts";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;

const TEXT = "Melanie told me her daughter started violin lessons with a teacher from Vienna last spring.";
const LONG_NAME = `Melanie ${"von ".repeat(WRITE_CAPS.name / 4)}Vienna`;
const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const scored = { confidence: 0.9, significance: "medium", valid_from: null, valid_to: null } as const;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith((req) => {
    if (!JSON.stringify(req.body).includes("violin lessons")) return { json: NOTHING };
    const evidence = "started violin lessons";
    return {
      json: {
        ...NOTHING,
        entities: [
          { name: LONG_NAME, type: "person", memory_category: "identity", aliases: [] },
          { name: "Melanie", type: "person", memory_category: "identity", aliases: Array(WRITE_CAPS.aliases + 1).fill("Mel") },
          { name: "Vienna", type: "place", memory_category: "knowledge", aliases: [] },
        ],
        attributes: [
          { entity: "Melanie", key: "hobby", value: "x".repeat(WRITE_CAPS.value + 1), memory_category: "knowledge", evidence, ...scored },
          { entity: "Melanie", key: "activity", value: "violin lessons", memory_category: "knowledge", evidence, ...scored },
        ],
      },
    };
  });
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

test("a model's candidates over a cap are invalid with the field and cap named; the rest commits", async () => {
  const ctx = await createContext(h.app, "extraction-caps");
  const api = contextClient(h.app, ctx);
  const turn = await api.turn(await api.session(), TEXT, []);
  expect(turn.extraction.status).toBe("committed");
  const invalid = await h.api.db.knowledgeCandidate.findMany({
    where: { contextId: ctx.contextId, status: "invalid" },
    select: { kind: true, validationErrors: true },
  });
  const reasons = invalid.flatMap((c) => (c.validationErrors as { field: string; message: string }[]).map((e) => ({ kind: c.kind, ...e })));
  expect(reasons.sort((a, b) => `${a.kind}.${a.field}`.localeCompare(`${b.kind}.${b.field}`))).toEqual([
    { kind: "attribute", field: "value", message: expect.stringContaining("(value cap)") },
    { kind: "entity", field: "aliases", message: expect.stringContaining("(aliases cap)") },
    { kind: "entity", field: "name", message: expect.stringContaining("(name cap)") },
  ]);
  const names = await h.api.db.entity.findMany({ where: { contextId: ctx.contextId }, select: { name: true } });
  expect(Math.max(...names.map((e) => e.name.length))).toBeLessThanOrEqual(WRITE_CAPS.name);
  expect(await h.api.db.attribute.count({ where: { contextId: ctx.contextId, value: "violin lessons" } })).toBe(1);
});
