// POST /context end to end on real Postgres and Redis: turns go through the real pipeline
// (heuristic stage, no model), then the packed context is read back under the budget, the
// scope rule, valid time, retraction and erasure.
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
const ALICE = ["org=acme", "user=alice"];
const BOB = ["org=acme", "user=bob"];
const turns: Record<string, string> = {};

interface Packed {
  text: string;
  tokens: number;
  sections: {
    instructions: { id: string; description: string }[];
    facts: { id: string; subject: { name: string }; predicate: string; value: string; source: { turn_id: string | null } }[];
    uncertainties: { id: string }[];
    excerpts: { kind: string; id: string; text: string; session_id: string | null; said_at: string }[];
  };
}

beforeAll(async () => {
  h = await startHarness();
  api = contextClient(h.app, await createContext(h.app, "acme"));
  const alice = await api.session();
  turns.intro = (await api.turn(alice, "I'm Alice, CTO at Acme. Always respond in bullet points.", ALICE)).turn_id;
  turns.correction = (await api.turn(alice, "Actually I'm the CEO now.", ALICE)).turn_id;
  turns.retracted = (await api.turn(await api.session(), "I'm Quillon, engineer at Vexcorp.", ALICE)).turn_id;
  turns.erased = (await api.turn(await api.session(), "I'm Marvok, designer at Plumbex.", ALICE)).turn_id;
  turns.bob = (await api.turn(await api.session(), "I'm Bob, engineer at Acme.", BOB)).turn_id;
  expect((await api.post(`/turns/${turns.retracted}/retract`, { reason: "test" })).status).toBe(200);
  expect((await api.post("/erasures", { turn_ids: [turns.erased] })).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

async function context(body: object): Promise<Packed> {
  const res = await api.post("/context", body);
  expect(res.status).toBe(200);
  expect(res.body.tokens).toBe(countTokens(res.body.text));
  return res.body;
}

const values = (p: Packed) => p.sections.facts.map((f) => `${f.subject.name} ${f.predicate} ${f.value}`).sort();

describe("POST /context", () => {
  test("packs the instruction first, the current facts with their source turn, and the matching excerpts", async () => {
    const p = await context({ message: "What is Alice's role at Acme?", scope: ALICE });
    expect(p.text.startsWith("## Instructions")).toBe(true);
    expect(p.sections.instructions.map((i) => i.description)).toEqual(["Always respond in bullet points"]);
    expect(values(p)).toEqual(["Alice role CEO", "Alice works_at Acme"]);
    const ceo = p.sections.facts.find((f) => f.value === "CEO");
    expect(ceo?.source.turn_id).toBe(turns.correction);
    expect(p.sections.excerpts.map((e) => e.id)).toContain(turns.intro);
    expect(p.sections.excerpts.every((e) => e.said_at && e.session_id)).toBe(true);
    // The fact is rendered once: by its line, or (when its source turn is packed) by the turn that says it.
    const said = p.sections.excerpts.some((e) => e.id === turns.correction);
    expect(p.text).toContain(said ? "Actually I'm the CEO now." : "Alice: role = CEO");
    expect(p.text.split("CEO").length - 1).toBe(1);
    expect(p.tokens).toBeLessThanOrEqual(1_500);
  });

  test("a superseded value is packed only with an as_of inside its window", async () => {
    const intro = await h.api.db.turn.findUniqueOrThrow({ where: { id: turns.intro! } });
    const then = await context({ message: "What is Alice's role at Acme?", scope: ALICE, as_of: intro.createdAt.toISOString() });
    expect(values(then)).toEqual(["Alice role CTO", "Alice works_at Acme"]);
    expect(then.sections.excerpts.map((e) => e.id)).not.toContain(turns.correction);
    const now = await context({ message: "Was Alice ever CTO?", scope: ALICE });
    expect(values(now)).not.toContain("Alice role CTO");
  });

  test("a retracted and an erased input are never packed, as facts or as excerpts", async () => {
    const p = await context({ message: "Quillon engineer Vexcorp; Marvok designer Plumbex", scope: ALICE, max_tokens: 16_000 });
    expect(p.text).not.toMatch(/Quillon|Vexcorp|Marvok|Plumbex/);
    expect(p.sections.excerpts.map((e) => e.id)).not.toEqual(expect.arrayContaining([turns.retracted]));
    expect(p.sections.excerpts.map((e) => e.id)).not.toContain(turns.erased);
    // /query still finds the retracted turn's raw text: the exclusion is /context's own.
    const search = await api.post("/query", { query: "Quillon", scope: ALICE });
    expect(search.body.results.map((r: { id: string }) => r.id)).toContain(turns.retracted);
  });

  test("another scope's facts and turns are never packed", async () => {
    const p = await context({ message: "What does Bob do at Acme? Is Bob an engineer?", scope: ALICE, max_tokens: 16_000 });
    expect(p.text).not.toContain("Bob");
    expect(p.sections.facts.map((f) => f.subject.name)).not.toContain("Bob");
    expect(p.sections.excerpts.map((e) => e.id)).not.toContain(turns.bob);
    const bob = await context({ message: "What does Bob do at Acme?", scope: BOB });
    expect(values(bob)).toEqual(expect.arrayContaining(["Bob role engineer"]));
    expect(bob.sections.instructions).toEqual([]);
    expect(bob.text).not.toContain("Alice");
  });

  test('"me" is the scope\'s person: asked "What do you know about me?", each reader gets their own current facts', async () => {
    const alice = await context({ message: "What do you know about me?", scope: ALICE });
    expect(values(alice)).toEqual(["Alice role CEO", "Alice works_at Acme"]);
    const bob = await context({ message: "what's my role?", scope: BOB });
    expect(values(bob)).toEqual(expect.arrayContaining(["Bob role engineer"]));
    expect(values(bob).filter((v) => v.startsWith("Alice"))).toEqual([]);
    // A reader who has said nothing in its own scope has no "me"; a message without "me" names nobody.
    expect(values(await context({ message: "What do you know about me?", scope: ["org=acme"] }))).toEqual([]);
    expect(values(await context({ message: "What do you know?", scope: ALICE }))).toEqual([]);
  });

  test("the caller's own session is not repeated as excerpts", async () => {
    const intro = await h.api.db.turn.findUniqueOrThrow({ where: { id: turns.intro! } });
    const p = await context({ message: "What is Alice's role at Acme?", scope: ALICE, session_id: intro.sessionId });
    expect(p.sections.excerpts.map((e) => e.session_id)).not.toContain(intro.sessionId);
    expect(values(p)).toContain("Alice role CEO");
  });

  test("a budget too small for anything answers an empty text, not an error", async () => {
    const p = await context({ message: "What is Alice's role?", scope: ALICE, max_tokens: 1 });
    expect(p).toMatchObject({ text: "", tokens: 0 });
  });

  test("bad bodies are 400s naming the field", async () => {
    const fields = async (body: object) => {
      const res = await api.post("/context", body);
      expect(res.status).toBe(400);
      expect(res.type).toBe("application/problem+json");
      return res.body.errors.map((e: { field: string }) => e.field).sort();
    };
    expect(await fields({ message: "hi", max_tokens: 0 })).toEqual(["body.max_tokens"]);
    expect(await fields({ message: "hi", max_tokens: 16_001 })).toEqual(["body.max_tokens"]);
    expect(await fields({ scope: ALICE })).toEqual(["body.message"]);
    expect(await fields({ message: "  ", as_of: "yesterday", session_id: "s1" })).toEqual([
      "body.as_of",
      "body.message",
      "body.session_id",
    ]);
  });
});

describe("POST /context under any budget, message and memory size", () => {
  const WORDS = ["Alice", "Acme", "role", "CEO", "engineer", "lives", "Lisbon", "trip", "when", "dinner", "bullet", "x".repeat(3_000)];
  const INSTRUCTIONS = ["Always respond in bullet points.", "Always answer in English."];
  const handles: ContextClient[] = [];
  const active: string[][] = [];

  beforeAll(async () => {
    // Three memories: empty, one session, and a larger one with long turns and a long run without spaces.
    for (const size of [0, 4, 12]) {
      const c = contextClient(h.app, await createContext(h.app, `size-${size}`));
      const session = await c.session();
      for (let i = 0; i < size; i++) {
        const content =
          i % 10 === 5
            ? `I'm Person${i}, engineer at Acme. ${"z".repeat(4_000)} ${"Alice planned the trip to Lisbon. ".repeat(40)}`
            : i % 2 === 0
              ? INSTRUCTIONS[(i / 2) % 2]!
              : `Alice went to Lisbon on a trip in May ${2020 + (i % 4)} and booked dinner number ${i}.`;
        await c.turn(session, content, ALICE);
      }
      handles.push(c);
      const profile = await c.get("/profile?scope[org]=acme&scope[user]=alice");
      active.push(profile.body.instructions.map((i: { id: string }) => i.id).sort());
    }
    expect(active.map((ids) => ids.length)).toEqual([0, 2, 2]);
  }, 120_000);

  test("the rendered text never exceeds max_tokens, its count is exact, and active instructions fit first", async () => {
    const message = fc
      .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 40 })), {
        minLength: 1,
        maxLength: 300,
      })
      .map((parts) => parts.join(" ").slice(0, 8_000))
      .filter((m) => m.trim() !== "");
    const budget = fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 16_000 }));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: handles.length - 1 }), message, budget, async (which, msg, maxTokens) => {
        const res = await handles[which]!.post("/context", { message: msg, scope: ALICE, max_tokens: maxTokens });
        expect(res.status).toBe(200);
        const p = res.body as Packed;
        expect(p.tokens).toBe(countTokens(p.text));
        expect(p.tokens).toBeLessThanOrEqual(maxTokens);
        // Two short instructions and their heading fit in 200 tokens: then every active one is packed.
        if (maxTokens >= 200) expect(p.sections.instructions.map((i) => i.id).sort()).toEqual(active[which]);
      }),
      { numRuns: 60 },
    );
  });
});
