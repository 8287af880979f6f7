// Who is meant: known entities by name and alias, the speaker the caller names, and "you" in a turn addressed by name.
import { alice, asCaroline, bob, caroline, type Case, melanie, testCases, withAlice } from "../testing/heuristic-cases";

const cases: Case[] = [
  // Known entities.
  {
    name: "known entity by alias, in a turn that needs a model",
    text: "Can you ask Al about the Acme contract?",
    input: withAlice,
    finished: false,
    entities: [
      ["Alice", "person"],
      ["Acme", "organization"],
    ],
  },
  {
    name: "known entity in capitals",
    text: "ACME shipped the new release.",
    input: withAlice,
    finished: false,
    entities: [["Acme", "organization"]],
  },
  {
    name: "no match inside a longer word",
    text: "Acmeville has a great bakery.",
    input: withAlice,
    finished: false,
    absentEntities: ["Acme"],
  },
  {
    name: "case-aware: 'max' is not the pet Max",
    text: "Keep it to max three bullet points.",
    input: withAlice,
    finished: true,
    absentEntities: ["Max"],
    instructions: [["Response length limit", "Keep it to max three bullet points"]],
  },
  // The speaker named by the caller.
  {
    name: "speaker given: 'I' is that person even with two people known",
    text: "I work at Acme.",
    input: { speaker: "Bob", knownEntities: [alice, bob] },
    finished: true,
    entities: [
      ["Acme", "organization"],
      ["Bob", "person"],
    ],
    relations: [["Bob", "works_at", "Acme"]],
  },
  {
    name: "speaker given but not yet known",
    text: "I live in Lisbon.",
    input: { speaker: "Dana", knownEntities: [alice, bob] },
    finished: true,
    entities: [
      ["Dana", "person"],
      ["Lisbon", "location"],
    ],
    relations: [["Dana", "lives_in", "Lisbon"]],
  },
  {
    name: "role with a named speaker",
    text: "I'm a teacher.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "role", "teacher"]],
  },
  {
    name: "a move with a named speaker",
    text: "I moved to Seattle last year.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Seattle", "location"],
    ],
    relations: [["Caroline", "lives_in", "Seattle"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z" },
  },
  // "You" in a turn addressed by name.
  {
    name: "you: the person addressed by name",
    text: "Thanks, Melanie! You went to the beach with your kids last week.",
    input: asCaroline,
    finished: true,
    entities: [
      ["beach", "location"],
      ["Melanie's kids", "person"],
      ["Melanie", "person"],
    ],
    relations: [
      ["Melanie", "visited", "beach"],
      ["Melanie", "related_to", "Melanie's kids"],
    ],
  },
  {
    name: "you: not addressed by name, so a model decides",
    text: "You went to the beach last week.",
    input: asCaroline,
    finished: false,
    reason: /who 'you' refers to/,
  },
  {
    name: "I: no speaker and two people known, so a model decides",
    text: "I love hiking.",
    input: { knownEntities: [caroline, melanie] },
    finished: false,
    reason: /who 'I' refers to/,
  },
];

describe("runHeuristics", () => {
  testCases(cases);
});
