// The stand-in answers Recall's real requests: a single turn read by the staged extractor and a
// window built by windowPrompt, both through the real `openai` SDK, on a made-up LoCoMo-format
// conversation. What it answers must parse as the model's schema and pass Recall's validation.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ExtractionDiff } from "@recall/contracts";
import { createStagedExtractorFactory, splitWindowDiff, systemPrompt, WindowDiff, windowPrompt } from "@recall/extraction";
import { Budget, createModelClient, structuredCall } from "@recall/llm";
import { DisambiguationAnswer, decisionFrom, disambiguationPrompt, validateCandidate } from "@recall/memory";
import { startStandinServer, type StandinServer } from "./standin-server";

const SESSION = new Date("2024-03-15T10:00:00Z");
const TURNS = [
  { speaker: "Ana", dia_id: "D1:1", text: "Hi Ben! Guess what? We adopted a puppy named Biscuit last week. He's so fluffy." },
  { speaker: "Ben", dia_id: "D1:2", text: "Congrats!! I just started at Google & I love the team." },
  { speaker: "Ana", dia_id: "D1:3", text: "That's great news, good luck!" },
];
const FIXTURE = {
  speaker_a: "Ana",
  speaker_b: "Ben",
  session_1_date_time: "10:00 am on 15 March, 2024",
  session_1: TURNS,
  session_1_observation: {
    Ana: [["Ana adopted a puppy named Biscuit last week.", "D1:1"]],
    Ben: [["Ben works at Google and loves his team.", "D1:2"]],
  },
  qa: [],
};
const GUIDANCE = { skillId: "extraction/conversation", skillBody: "" };
const TYPES = new Set(["person", "organization", "location", "topic", "event", "pet", "product", "group"]);

let server: StandinServer;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "standin-"));
  fs.writeFileSync(path.join(dir, "fixture.json"), JSON.stringify(FIXTURE));
  server = await startStandinServer(dir);
});

afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const providers = () => ({ models: { fast: "openai-compatible:standin" }, openaiBaseUrl: server.baseUrl, timeoutMs: 10_000 });

/** Every candidate of the diff as Recall's validation judges it against the turn's text. */
function refusals(diff: ExtractionDiff, text: string): unknown[] {
  const judged = [
    ...diff.entities.map((e) => validateCandidate("entity", e, { sourceText: text, allowedTypes: TYPES })),
    ...diff.attributes.map((a) => validateCandidate("attribute", a, { sourceText: text, allowedTypes: TYPES })),
    ...diff.relations.map((r) => validateCandidate("relation", r, { sourceText: text, allowedTypes: TYPES })),
  ];
  return judged.filter((v) => !v.ok);
}

test("a single turn, found though its spacing and escaping differ, is answered with its annotation", async () => {
  const extract = createStagedExtractorFactory({ providers: providers(), heuristicThreshold: 1 });
  const text = TURNS[0]!.text.replace("He's", "He’s").replace(/ /g, "  ");
  const input = { text, kind: "turn" as const, role: "user", speaker: "Ana", referenceTime: SESSION };
  const outcome = await extract({ maxTokens: 100_000, maxWallMs: 10_000 }).extract(
    { ...input, knownEntities: [], knownAttributes: [], activeInstructions: [] },
    GUIDANCE,
  );

  expect(outcome.stage).toBe("fast");
  expect(outcome.diff.entities).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: "Ana", type: "person" }),
      expect.objectContaining({ name: "Biscuit", type: "pet" }),
    ]),
  );
  const owns = outcome.diff.relations.find((r) => r.verb === "owns");
  expect(owns).toMatchObject({
    subject: "Ana",
    object: "Biscuit",
    evidence: { quote: "We  adopted  a  puppy  named  Biscuit  last  week." },
  });
  // "last week" from the session's date, not the day the test runs.
  expect(Date.parse(owns!.valid_from!)).toBeLessThan(SESSION.getTime());
  expect(Date.parse(owns!.valid_from!)).toBeGreaterThan(SESSION.getTime() - 14 * 86_400_000);
  expect(refusals(outcome.diff, text)).toEqual([]);
  expect(server.counts.turnsAnnotated).toBe(1);
});

test("a window's turns are each answered under their own number; a turn without annotations gets nothing", async () => {
  const client = createModelClient(providers(), "fast")!;
  const turns = TURNS.map((t) => ({ text: t.text, role: "user", speaker: t.speaker, referenceTime: SESSION }));
  const known = { knownEntities: [{ id: "1", name: "Biscuit", type: "pet", aliases: [] }], activeInstructions: [] };
  const result = await structuredCall(
    client,
    {
      system: systemPrompt(GUIDANCE),
      user: windowPrompt(turns, known),
      schema: WindowDiff,
      schemaName: "window_extraction",
      maxTokens: 4_096,
    },
    { budget: new Budget({ maxTokens: 100_000, maxWallMs: 10_000 }) },
  );

  const [ana, ben, thanks] = splitWindowDiff(result.value, turns.length);
  expect(ana!.relations.map((r) => [r.verb, r.object])).toContainEqual(["owns", "Biscuit"]);
  expect(ben!.relations.map((r) => [r.subject, r.verb, r.object])).toContainEqual(["Ben", "works_at", "Google"]);
  expect(ben!.entities).toContainEqual(expect.objectContaining({ name: "Google", type: "organization" }));
  expect(thanks!.entities).toEqual([]);
  expect(refusals(ana!, TURNS[0]!.text)).toEqual([]);
  expect(refusals(ben!, TURNS[1]!.text)).toEqual([]);
  expect(result.usage.inputTokens).toBeGreaterThan(0);
});

test("a contested name means the known entity of that very name, else a new one", async () => {
  const client = createModelClient(providers(), "fast")!;
  const ask = async (name: string) => {
    const request = {
      name,
      type: "topic",
      reason: "type_incompatible" as const,
      options: [
        { id: "e1", name: "Biscuit", type: "pet", aliases: [], facts: [] },
        { id: "e2", name: "Biscuits", type: "product", aliases: [], facts: [] },
      ],
    };
    const prompt = disambiguationPrompt(request);
    const result = await structuredCall(
      client,
      { ...prompt, schema: DisambiguationAnswer, schemaName: "entity_choice", maxTokens: 512 },
      { budget: new Budget({ maxTokens: 10_000, maxWallMs: 10_000 }) },
    );
    return decisionFrom(result.value, request).entityId;
  };

  expect(await ask("biscuit")).toBe("e1");
  expect(await ask("Cookie")).toBeNull();
  expect(server.counts.entityChoices).toEqual({ known: 1, new: 1 });
});
