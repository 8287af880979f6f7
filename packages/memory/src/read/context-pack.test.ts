import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
import { READ_LIMITS } from "./answer-bounds";
import { clip, packContext, type ContextCandidates, type ExcerptCandidate } from "./context-pack";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = new Date("2026-05-08T10:00:00Z");

function excerpt(n: number, text: string, score: number): ExcerptCandidate {
  return { kind: "turn", id: id(n), session_id: id(0), seq: n, speaker: "Caroline", document_id: null, said_at: at, text, score };
}

const candidates = (excerpts: ExcerptCandidate[]): ContextCandidates => ({
  instructions: [{ id: id(100), label: "format", description: "Always answer in bullet points", scope: [], created_at: at }],
  facts: [],
  uncertainties: [],
  excerpts,
});

test("instructions come first; the rest is packed by relevance per token and rendered in the order said", () => {
  const long = "Caroline talked at length about the adoption agencies she had been researching ".repeat(8);
  const pack = packContext(candidates([excerpt(1, long, 0.5), excerpt(2, "She went to the LGBTQ support group.", 0.4)]), 70);
  expect(pack.text.split("\n")[0]).toBe("## Instructions (always follow these)");
  expect(pack.sections.instructions).toHaveLength(1);
  expect(pack.sections.excerpts.map((e) => e.seq)).toEqual([2]);
  expect(pack.tokens).toBe(countTokens(pack.text));
  expect(pack.tokens).toBeLessThanOrEqual(70);
});

test("every budget holds exactly, down to one token", () => {
  const many = Array.from({ length: 30 }, (_, n) => excerpt(n, `Turn ${n}: ${"word ".repeat(n)}`, 1 / (2 + n)));
  for (const budget of [1, 5, 12, 13, 20, 50, 100, 333, 1_000]) {
    const pack = packContext(candidates(many), budget);
    expect({ budget, tokens: pack.tokens }).toEqual({ budget, tokens: countTokens(pack.text) });
    expect(pack.tokens).toBeLessThanOrEqual(budget);
  }
  expect(packContext(candidates(many), 1)).toMatchObject({ text: "", tokens: 0 });
});

test("stored text is cut before it is counted: a run of 200,000 letters becomes one bounded line", () => {
  const pack = packContext(candidates([excerpt(1, "x".repeat(200_000), 1)]), 16_000);
  expect(pack.sections.excerpts[0]!.text.length).toBeLessThanOrEqual(700);
  expect(pack.text.length).toBeLessThan(1_000);
});

test("clip folds whitespace and cuts at a word", () => {
  expect(clip("a\n\nb\tc", 10)).toBe("a b c");
  expect(clip("alpha beta gamma delta", 15)).toBe("alpha beta…");
  expect(clip("y".repeat(50), 10)).toBe(`${"y".repeat(9)}…`);
  // Whitespace beyond the slice still marks the cut.
  expect(clip(`short${" ".repeat(100)}tail`, 10)).toBe("short…");
});

test("at the largest token budget the answer stays within the byte budget: long stored values are clipped, flagged, and items past it left out", () => {
  const entity = { id: id(200), name: "Zed", type: "person" };
  const fact = (n: number) => ({
    fact: {
      kind: "attribute" as const,
      ...{ id: id(1_000 + n), entity, key: `note_${n}`, value: "\u0001".repeat(60_000), memory_category: "knowledge", confidence: 1 },
      ...{
        scope: [],
        valid_from: at,
        valid_to: null,
        superseded_by: null,
        recorded_at: at,
        retracted_at: null,
        assertion_id: id(5_000 + n),
      },
    },
    entityId: entity.id,
    score: 1,
  });
  const long = { id: id(101), label: "style", description: "lorem ".repeat(20_000), scope: [], created_at: at };
  const pack = packContext({ ...candidates([]), instructions: [long], facts: Array.from({ length: 600 }, (_, n) => fact(n)) }, 16_000);
  expect(Buffer.byteLength(JSON.stringify(pack))).toBeLessThanOrEqual(READ_LIMITS.answerBytes);
  expect(pack.sections.instructions[0]).toMatchObject({ truncated: true });
  expect(pack.sections.facts.length).toBeGreaterThan(0);
  expect(pack.sections.facts.every((f) => f.truncated && f.value.length <= READ_LIMITS.valueChars)).toBe(true);
});

test("a fact whose packed source excerpt says its value is packed without its line in the text", () => {
  const entity = { id: id(200), name: "Caroline", type: "person" };
  const fact = (n: number, key: string, value: string, sourceId: string) => ({
    fact: {
      kind: "attribute" as const,
      ...{ id: id(1_000 + n), entity, key, value, memory_category: "identity", confidence: 1, scope: [], valid_from: at, valid_to: null },
      ...{ superseded_by: null, recorded_at: at, retracted_at: null, assertion_id: id(5_000 + n) },
    },
    entityId: entity.id,
    score: 0.9,
    sourceId,
  });
  const facts = [fact(1, "goal", "adoption agency", id(1)), fact(2, "hobby", "painting sunsets", id(1))];
  const excerpts = [
    excerpt(1, "I met with an adoption agency today!", 1),
    excerpt(2, "The counsellor was kind and patient with everyone there.", 0.3),
  ];
  const pack = packContext({ ...candidates(excerpts), instructions: [], facts }, 200);
  expect(pack.sections.excerpts.map((e) => e.id)).toEqual([id(1), id(2)]);
  expect(pack.sections.facts.map((f) => f.predicate).sort()).toEqual(["goal", "hobby"]);
  // The goal is in the excerpt's words, so the text says it once; the hobby is not, so its line is there.
  expect(pack.text).not.toContain("goal = adoption agency");
  expect(pack.text).toContain("hobby = painting sunsets");
  expect(pack.tokens).toBe(countTokens(pack.text));
});
