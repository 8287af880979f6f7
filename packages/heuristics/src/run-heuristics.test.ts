// Whole turns through runHeuristics: the demo turn, thresholds and mixtures, documents, when a turn counts as
// finished, small talk and corrections.
import { asCaroline, type Case, run, testCases, withAlice } from "./testing/heuristic-cases";

const DEMO: Case = {
  name: "demo: introduction with role and employer, plus an instruction",
  text: "I'm Alice, CTO at Acme. Always respond in bullet points.",
  finished: true,
  entities: [
    ["Alice", "person"],
    ["Acme", "organization"],
  ],
  attributes: [["Alice", "role", "CTO"]],
  relations: [["Alice", "works_at", "Acme"]],
  instructions: [["Bullet-point responses", "Always respond in bullet points"]],
};

const cases: Case[] = [
  // The foundation demo turn.
  DEMO,
  // Thresholds, mixtures, documents.
  {
    name: "a reaction finishes at the usual threshold",
    text: "Wow, that agency looks great!",
    threshold: 0.75,
    finished: true,
    empty: true,
  },
  {
    name: "but not when the threshold asks for more",
    text: "Wow, that agency looks great!",
    threshold: 0.9,
    finished: false,
    reason: /below 0.9/,
  },
  {
    name: "thanks plus an instruction",
    text: "Thanks! Always cite your sources.",
    finished: true,
    instructions: [["Cite your sources", "Always cite your sources"]],
  },
  {
    name: "instruction plus an event: partial",
    text: "Always respond in bullet points. I went hiking yesterday.",
    finished: false,
    instructions: [["Bullet-point responses", "Always respond in bullet points"]],
  },
  {
    name: "documents hold no instructions to the assistant",
    text: "Always run migrations before deploying.",
    input: { kind: "document_node", role: undefined },
    finished: false,
    noDirectives: true,
  },
  {
    name: "documents still yield third-party facts",
    text: "Bob is the CFO of Initech.",
    input: { kind: "document_node", role: undefined },
    finished: true,
    entities: [
      ["Bob", "person"],
      ["Initech", "organization"],
    ],
    attributes: [["Bob", "role", "CFO"]],
    relations: [["Bob", "works_at", "Initech"]],
  },
  { name: "blank text", text: "   ", finished: true, empty: true },
  {
    name: "multi-byte text keeps byte spans",
    text: "Zoë says hi. I'm Zoë, CTO at Ünïcorn.",
    finished: false,
    entities: [
      ["Zoë", "person"],
      ["Ünïcorn", "organization"],
    ],
    attributes: [["Zoë", "role", "CTO"]],
    relations: [["Zoë", "works_at", "Ünïcorn"]],
  },

  // Turns are finished only when every sentence is read.
  {
    name: "a read sentence beside an unread one: partial",
    text: "I love hiking. My brother wrote me a letter.",
    input: asCaroline,
    finished: false,
    entities: [
      ["Caroline", "person"],
      ["hiking", "activity"],
    ],
    relations: [["Caroline", "likes", "hiking"]],
    reason: /no rule reads "My brother wrote me a letter/,
  },
  { name: "encouragement to the listener", text: "You're doing great, keep going!", input: asCaroline, finished: true, empty: true },
  { name: "a stretched reaction", text: "It was sooo cool.", input: asCaroline, finished: true, empty: true },
  {
    name: "an 'it' sentence with content is not a reaction",
    text: "It's a great strategy game where you build settlements.",
    input: asCaroline,
    finished: false,
  },
  // Small talk.
  { name: "small talk: haha, nice", text: "haha, nice!", finished: true, empty: true },
  { name: "small talk: thanks, see you", text: "thanks, see you", finished: true, empty: true },
  { name: "small talk: ok", text: "ok", finished: true, empty: true },
  { name: "small talk: lol that's great", text: "lol that's great", finished: true, empty: true },
  { name: "small talk: good morning", text: "Good morning!", finished: true, empty: true },
  { name: "small talk: wow, that's awesome", text: "Wow, that's awesome!", finished: true, empty: true },
  {
    name: "small talk with names in address",
    text: "Hey Mel! Good to see you! How have you been?",
    input: withAlice,
    finished: true,
    empty: true,
  },
  {
    name: "small talk says nothing about the person addressed",
    text: "Thanks, Alice! That's great.",
    input: withAlice,
    finished: true,
    empty: true,
  },
  {
    name: "an event is not small talk",
    text: "I went to a LGBTQ support group yesterday and it was so powerful.",
    finished: false,
    reason: /needs a model/,
  },
  { name: "a pet is not small talk", text: "We've got a pup and a kitty.", finished: false },
  { name: "a shared photo is not small talk", text: "Here's a pic of my new studio!", finished: false },
  // Corrections.
  {
    name: "correction of a known title",
    text: "Actually my title is VP of Engineering.",
    input: withAlice,
    finished: true,
    entities: [["Alice", "person"]],
    attributes: [["Alice", "title", "VP of Engineering"]],
  },
  {
    name: "correction of a known home",
    text: "Correction: I live in Lisbon now.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Lisbon", "location"],
    ],
    relations: [["Alice", "lives_in", "Lisbon"]],
    // "now" observes the home when said; it does not date a move (the time rule), so valid time comes from the turn.
    validity: { valid_from: undefined },
  },
  {
    name: "a correction keeps the key memory uses",
    text: "Actually, my role is Head of Product.",
    input: withAlice,
    finished: true,
    entities: [["Alice", "person"]],
    attributes: [["Alice", "title", "Head of Product"]],
  },
  {
    name: "correction of a fact memory does not hold",
    text: "Actually, I work at Globex now.",
    input: withAlice,
    finished: false,
    entities: [
      ["Alice", "person"],
      ["Globex", "organization"],
    ],
    relations: [["Alice", "works_at", "Globex"]],
    reason: /does not hold/,
  },
];

describe("runHeuristics", () => {
  testCases(cases);

  test("the demo turn in detail: categories, evidence and confidence", () => {
    const outcome = run(DEMO);
    if (!outcome.finished) throw new Error(outcome.reason);
    expect(outcome.diff.entities).toEqual([
      expect.objectContaining({
        name: "Alice",
        type: "person",
        memory_category: "identity",
        evidence: { quote: "Alice", start_byte: 4, end_byte: 9 },
      }),
      expect.objectContaining({ name: "Acme", type: "organization" }),
    ]);
    expect(outcome.diff.relations[0]).toMatchObject({ memory_category: "identity", evidence: { quote: "I'm Alice, CTO at Acme" } });
    expect(outcome.diff.instructions[0]?.evidence).toEqual({ quote: "Always respond in bullet points", start_byte: 24, end_byte: 55 });
    expect(outcome.confidence).toBeGreaterThanOrEqual(0.75);
  });

  test("a personal fact in detail: category, significance, confidence, evidence and its bytes", () => {
    const text = "Hey Mel! I went to a pride parade yesterday - it was a blast!";
    const outcome = run({ name: "detail", text, input: asCaroline, finished: true });
    if (!outcome.finished) throw new Error(outcome.reason);
    expect(outcome.diff.relations).toEqual([
      {
        subject: "Caroline",
        subject_type: "person",
        verb: "attended",
        object: "pride parade",
        object_type: "event",
        memory_category: "context",
        significance: "medium",
        confidence: 0.85,
        evidence: { quote: "I went to a pride parade yesterday", start_byte: 9, end_byte: 43 },
        valid_from: "2024-05-14T00:00:00.000Z",
        valid_to: "2024-05-15T00:00:00.000Z",
      },
    ]);
    // The speaker and the event; Mel, only addressed, is not one.
    expect(outcome.diff.entities).toEqual([
      expect.objectContaining({ name: "Caroline", type: "person" }),
      expect.objectContaining({ name: "pride parade", type: "event", evidence: { quote: "pride parade", start_byte: 21, end_byte: 33 } }),
    ]);
  });
});
