// The staged extractor with the real provider SDKs against the local wire-protocol server:
// which stage finishes an input, when it escalates, what it costs, and what it refuses.
import { configWith, extractorOptions, type Config } from "@recall/config";
import { BudgetExceededError, OutputValidationError } from "@recall/llm";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import type { ExtractionInput, KnownEntity } from "@recall/contracts";
import type { BudgetLimits, Extractor } from "./extractor";
import type { ModelDiff } from "./model-output";
import { ambiguousReference } from "./cpu/rule-reading";
import { createStagedExtractorFactory, selfContradiction } from "./staged-extractor";

const FAST = "anthropic:claude-fast";
const STRONG = "openai:gpt-strong";
const GUIDANCE = { skillId: "extraction/technical-docs", skillBody: "Extract components and what they depend on." };
const ROOMY: BudgetLimits = { maxTokens: 100_000, maxWallMs: 30_000 };
const NEEDS_MODEL = "Kestrel is the billing service. It depends on Redis for its queues.";

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(() => server.close());

function extractorWith(
  models: { fast?: string; strong?: string },
  limits: BudgetLimits = ROOMY,
  overrides: Partial<Record<keyof Config, string>> = {},
): Extractor {
  const config = configWith({
    RECALL_FAST_MODEL: models.fast,
    RECALL_STRONG_MODEL: models.strong,
    ANTHROPIC_API_KEY: "test-anthropic-key",
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: server.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    ...overrides,
  });
  return createStagedExtractorFactory(extractorOptions(config))(limits);
}

function input(text: string, knownEntities: KnownEntity[] = [], kind: ExtractionInput["kind"] = "document_node"): ExtractionInput {
  return {
    text,
    kind,
    role: "user",
    referenceTime: new Date("2025-03-01T00:00:00Z"),
    knownEntities,
    knownAttributes: [],
    activeInstructions: [],
  };
}

function answer(over: Partial<ModelDiff> = {}): ModelDiff {
  return { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [], ...over };
}

function attribute(entity: string, key: string, value: string, evidence: string): ModelDiff["attributes"][number] {
  return {
    entity,
    key,
    value,
    memory_category: "knowledge",
    evidence,
    confidence: 0.9,
    significance: "medium",
    valid_from: null,
    valid_to: null,
  };
}

const KESTREL = answer({
  entities: [{ name: "Kestrel", type: "component", memory_category: "knowledge", aliases: [] }],
  relations: [
    {
      subject: "Kestrel",
      verb: "depends_on",
      object: "Redis",
      memory_category: "knowledge",
      evidence: "It depends on Redis for its queues",
      confidence: 0.9,
      significance: "high",
      valid_from: null,
      valid_to: null,
    },
  ],
});
// Fails the schema: the repair retry and the escalation rule both apply to it.
const INVALID = { entities: "Kestrel", attributes: [] };

const routes = () => server.requests.map((r) => r.route);
const userText = (i: number) => JSON.stringify(server.requests[i]?.body["messages"]);
const person = (id: string, name: string): KnownEntity => ({ id, name, type: "person", aliases: [] });
const TWO_JORDANS = [person("e1", "Jordan Lee"), person("e2", "Jordan Smith")];

test("heuristics finish small talk without a model, even when none is configured", async () => {
  const outcome = await extractorWith({}).extract(input("haha, nice!", [], "turn"), GUIDANCE);

  expect(outcome).toMatchObject({ stage: "heuristic", tokensUsed: 0 });
  expect(outcome.diff.attributes).toEqual([]);
  expect(server.requests).toHaveLength(0);
});

test("the fast model reads what heuristics cannot; tokens are the provider's reported usage", async () => {
  server.script({ json: KESTREL, usage: { inputTokens: 300, outputTokens: 40 } });
  const extractor = extractorWith({ fast: FAST, strong: STRONG });
  const outcome = await extractor.extract(input(NEEDS_MODEL), GUIDANCE);

  expect(outcome).toMatchObject({ stage: "fast", model: "anthropic:claude-fast", tokensUsed: 340 });
  expect(outcome.diff.relations[0]).toMatchObject({
    subject: "Kestrel",
    verb: "depends_on",
    evidence: { quote: "It depends on Redis for its queues" },
  });
  expect(extractor.tokensUsed).toBe(340);
  expect(routes()).toEqual(["anthropic"]);
  expect(userText(0)).toContain(NEEDS_MODEL);
  expect(JSON.stringify(server.requests[0]!.body["system"])).toContain("Extract components and what they depend on.");
});

test("a turn's speaker is named to the model, so it knows who 'I' is", async () => {
  server.script({ json: answer(), usage: { inputTokens: 100, outputTokens: 5 } });
  const extractor = extractorWith({ fast: FAST });
  const turn = { ...input("Honestly the new gearbox audit has me worried about Lars.", [], "turn"), speaker: "Priya" };
  await extractor.extract(turn, GUIDANCE);

  expect(userText(0)).toContain('Speaker: Priya (\\"I\\", \\"me\\" and \\"my\\" in the input refer to Priya)');
});

describe("escalation to the strong model", () => {
  test("output still invalid after one repair goes to the strong model, and every call is counted", async () => {
    server.script(
      { json: INVALID, usage: { inputTokens: 100, outputTokens: 10 } },
      { json: INVALID, usage: { inputTokens: 150, outputTokens: 10 } },
      { json: KESTREL, usage: { inputTokens: 200, outputTokens: 30 } },
    );
    const outcome = await extractorWith({ fast: FAST, strong: STRONG }).extract(input(NEEDS_MODEL), GUIDANCE);

    expect(outcome).toMatchObject({ stage: "strong", model: "openai:gpt-strong", tokensUsed: 500 });
    expect(outcome.reason).toMatch(/fast model output failed validation after one repair/);
    expect(routes()).toEqual(["anthropic", "anthropic", "openai"]);
    expect(userText(1)).toContain("Your previous answer could not be used");
    expect(userText(2)).toContain("Take care: a first reading failed");
  });

  test("without a strong model the validation failure is thrown, its tokens still counted", async () => {
    server.script(
      { json: INVALID, usage: { inputTokens: 100, outputTokens: 10 } },
      { json: INVALID, usage: { inputTokens: 150, outputTokens: 10 } },
    );
    const extractor = extractorWith({ fast: FAST });
    const error = await extractor.extract(input(NEEDS_MODEL), GUIDANCE).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toMatchObject({ attempts: 2 });
    expect(extractor.tokensUsed).toBe(270);
    expect(extractor.stageReached).toBe("fast");
    expect(routes()).toEqual(["anthropic", "anthropic"]);
  });

  const CONTRADICTING = answer({
    attributes: [
      attribute("Kestrel", "port", "8080", "Kestrel listens on 8080"),
      attribute("Kestrel", "port", "9090", "it listens on 9090"),
    ],
  });
  const PORTS = "Kestrel listens on 8080. Later in the same note it listens on 9090.";

  test("a fast answer that contradicts itself goes to the strong model", async () => {
    server.script({ json: CONTRADICTING }, { json: answer({ attributes: [attribute("Kestrel", "port", "9090", "it listens on 9090")] }) });
    const outcome = await extractorWith({ fast: FAST, strong: STRONG }).extract(input(PORTS), GUIDANCE);

    expect(outcome.stage).toBe("strong");
    expect(outcome.reason).toMatch(/contradicts itself: Kestrel\.port is both "8080" and "9090"/);
    expect(outcome.diff.attributes.map((a) => a.value)).toEqual(["9090"]);
    expect(routes()).toEqual(["anthropic", "openai"]);
  });

  test("without a strong model the contradicting fast answer stands, and the reason says why", async () => {
    server.script({ json: CONTRADICTING });
    const outcome = await extractorWith({ fast: FAST }).extract(input(PORTS), GUIDANCE);

    expect(outcome.stage).toBe("fast");
    expect(outcome.reason).toMatch(/no strong model configured, keeping the fast answer/);
    expect(outcome.diff.attributes).toHaveLength(2);
    expect(routes()).toEqual(["anthropic"]);
  });

  test("a name that fits two known entities goes straight to the strong model, told which name", async () => {
    server.script({ json: answer({ uncertainties: [{ about: "Jordan", reason: "two people called Jordan", entity: null, key: null }] }) });
    const outcome = await extractorWith({ fast: FAST, strong: STRONG }).extract(
      input("Jordan moved to the Berlin office.", TWO_JORDANS),
      GUIDANCE,
    );

    expect(outcome).toMatchObject({ stage: "strong", model: "openai:gpt-strong" });
    expect(outcome.reason).toMatch(/ambiguous reference "Jordan"/);
    expect(routes()).toEqual(["openai"]);
    expect(userText(0)).toContain('\\"Jordan\\" fits more than one known entity');
    expect(userText(0)).toContain("- Jordan Lee (person)");
  });

  test("with no strong model an ambiguous name is read by the fast one", async () => {
    server.script({ json: answer() });
    const outcome = await extractorWith({ fast: FAST }).extract(input("Jordan moved to the Berlin office.", TWO_JORDANS), GUIDANCE);

    expect(outcome.stage).toBe("fast");
    expect(routes()).toEqual(["anthropic"]);
  });
});

describe("ambiguousReference", () => {
  test.each<[string, string, KnownEntity[], string | undefined]>([
    ["a shared first name", "Jordan moved to Berlin.", TWO_JORDANS, "Jordan"],
    ["a full name settles it", "Jordan Lee moved to Berlin; Jordan loves it.", TWO_JORDANS, undefined],
    ["one entity fits", "Jordan moved to Berlin.", [person("e1", "Jordan Lee")], undefined],
    [
      "same name, different types",
      "We flew to Jordan.",
      [person("e1", "Jordan"), { id: "e2", name: "Jordan", type: "place", aliases: [] }],
      "Jordan",
    ],
    [
      "a shared alias",
      "JB signed off.",
      [
        { ...person("e1", "Jo Bee"), aliases: ["JB"] },
        { ...person("e2", "Jim Bell"), aliases: ["JB"] },
      ],
      "JB",
    ],
    ["the verb is not the name", "I will move to Berlin.", [person("e1", "Will Smith"), person("e2", "Will Jones")], undefined],
    ["two stored people with one name", "Jordan called.", [person("e1", "Jordan"), person("e2", "Jordan")], "Jordan"],
  ])("%s", (_, text, known, expected) => {
    expect(ambiguousReference(input(text, known))).toBe(expected);
  });
});

test("selfContradiction compares values per entity and key, ignoring case", () => {
  const a = (entity: string, value: string) => ({
    ...attribute(entity, "role", value, "x"),
    evidence: { quote: "x" },
    valid_from: undefined,
    valid_to: undefined,
  });
  const diff = (...attributes: ReturnType<typeof a>[]) => ({
    entities: [],
    attributes,
    relations: [],
    instructions: [],
    revocations: [],
    uncertainties: [],
  });
  expect(selfContradiction(diff(a("Alice", "CTO"), a("alice", "cto")))).toBeUndefined();
  expect(selfContradiction(diff(a("Alice", "CTO"), a("Bob", "CEO")))).toBeUndefined();
  expect(selfContradiction(diff(a("Alice", "CTO"), a("Alice", "CEO")))).toBe('Alice.role is both "cto" and "CEO"');
});

describe("no provider", () => {
  test("an input that needs a model keeps the rules' sure part and awaits a model, naming the variables to set", async () => {
    const extractor = extractorWith({});
    const outcome = await extractor.extract(input(NEEDS_MODEL), GUIDANCE);

    expect(outcome).toMatchObject({ stage: "heuristic", awaitingModel: true, tokensUsed: 0 });
    expect(outcome.reason).toMatch(/RECALL_FAST_MODEL/);
    expect(outcome.reason).toMatch(/ANTHROPIC_API_KEY.*OPENAI_API_KEY.*OPENAI_BASE_URL/);
    expect(server.requests).toHaveLength(0);
  });

  test("a turn read in part commits that part: the sentence the rules read, with its quote", async () => {
    const outcome = await extractorWith({}).extract(
      input("Carol is the CFO at Acme. Carol worries about the audit.", [], "turn"),
      GUIDANCE,
    );

    expect(outcome.awaitingModel).toBe(true);
    expect(outcome.diff.attributes).toEqual([
      expect.objectContaining({
        entity: "Carol",
        key: "role",
        value: "CFO",
        evidence: expect.objectContaining({ quote: "Carol is the CFO at Acme" }),
      }),
    ]);
  });

  test("a model set without its key: the rules' part is kept and the rest awaits, naming the key", async () => {
    const extractor = extractorWith({ fast: FAST }, ROOMY, { ANTHROPIC_API_KEY: undefined });
    expect((await extractor.extract(input("haha, nice!", [], "turn"), GUIDANCE)).stage).toBe("heuristic");

    const outcome = await extractor.extract(input(NEEDS_MODEL), GUIDANCE);
    expect(outcome).toMatchObject({ stage: "heuristic", awaitingModel: true });
    expect(outcome.reason).toMatch(/ANTHROPIC_API_KEY/);
  });

  test("a strong model set without its key, needed by an escalation: the rules' part is kept and the rest awaits", async () => {
    server.script({ json: INVALID }, { json: INVALID });
    const extractor = extractorWith({ fast: "openai:gpt-fast", strong: "anthropic:claude-strong" }, ROOMY, {
      ANTHROPIC_API_KEY: undefined,
    });
    const outcome = await extractor.extract(input(NEEDS_MODEL), GUIDANCE);

    expect(outcome).toMatchObject({ stage: "heuristic", awaitingModel: true });
    expect(outcome.reason).toMatch(/ANTHROPIC_API_KEY/);
    expect(routes()).toEqual(["openai", "openai"]);
  });

  test("a strong-only service starts with the strong model", async () => {
    server.script({ json: KESTREL });
    const outcome = await extractorWith({ strong: STRONG }).extract(input(NEEDS_MODEL), GUIDANCE);

    expect(outcome.stage).toBe("strong");
    expect(routes()).toEqual(["openai"]);
  });
});

describe("budget", () => {
  test("spans every input of the work item: once what is left cannot hold the next prompt, that call is not made", async () => {
    server.script({ json: KESTREL, usage: { inputTokens: 1_400, outputTokens: 100 } });
    const extractor = extractorWith({ fast: FAST }, { maxTokens: 2_500, maxWallMs: 30_000 });
    expect((await extractor.extract(input(NEEDS_MODEL), GUIDANCE)).tokensUsed).toBe(1_500);

    const error = await extractor.extract(input("Osprey is the ledger. It stores entries in Postgres."), GUIDANCE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "tokens", tokensUsed: 1_500, maxTokens: 2_500, promptTokens: Infinity });
    expect(server.requests).toHaveLength(1);
  });

  test("never asks for more output than the budget leaves after the prompt", async () => {
    server.script({ json: KESTREL });
    await extractorWith({ fast: FAST }, { maxTokens: 2_500, maxWallMs: 30_000 }).extract(input(NEEDS_MODEL), GUIDANCE);

    const cap = server.requests[0]!.body["max_tokens"] as number;
    expect(cap).toBeGreaterThanOrEqual(64);
    expect(cap).toBeLessThan(2_500 - 1_000);
  });

  test("the wall-time budget cuts a call that outlasts it", async () => {
    server.script({ json: KESTREL, delayMs: 3_000 });
    const started = Date.now();
    const error = await extractorWith({ fast: FAST }, { maxTokens: 100_000, maxWallMs: 300 })
      .extract(input(NEEDS_MODEL), GUIDANCE)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "wall_time", maxWallMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
