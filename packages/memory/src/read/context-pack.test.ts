import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
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
