// Temporal phrases on the facts they qualify (the resolver itself: temporal-resolver.test.ts).
import { type Case, testCases, withAlice } from "../testing/heuristic-cases";

const cases: Case[] = [
  // Temporal phrases on the facts they qualify.
  {
    name: "since January",
    text: "I've lived in Berlin since January.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Berlin", "location"],
    ],
    relations: [["Alice", "lives_in", "Berlin"]],
    validity: { valid_from: "2024-01-01T00:00:00.000Z" },
  },
  {
    name: "until next quarter",
    text: "I work at Acme until next quarter.",
    input: withAlice,
    finished: true,
    entities: [
      ["Acme", "organization"],
      ["Alice", "person"],
    ],
    relations: [["Alice", "works_at", "Acme"]],
    validity: { valid_to: "2024-07-01T00:00:00.000Z" },
  },
  {
    name: "last year, past state",
    text: "I lived in Paris last year.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Paris", "location"],
    ],
    relations: [["Alice", "lives_in", "Paris"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z", valid_to: "2024-01-01T00:00:00.000Z" },
  },
  {
    name: "from March 2023",
    text: "From March 2023 I worked at Globex.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Globex", "organization"],
    ],
    relations: [["Alice", "works_at", "Globex"]],
    validity: { valid_from: "2023-03-01T00:00:00.000Z" },
  },
  {
    name: "from … to …",
    text: "I worked at Initech from March 2023 to June 2023.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Initech", "organization"],
    ],
    relations: [["Alice", "works_at", "Initech"]],
    validity: { valid_from: "2023-03-01T00:00:00.000Z", valid_to: "2023-07-01T00:00:00.000Z" },
  },
  {
    name: "a move last year starts the new home",
    text: "I moved to Lisbon last year.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Lisbon", "location"],
    ],
    relations: [["Alice", "lives_in", "Lisbon"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z" },
  },
];

describe("runHeuristics", () => {
  testCases(cases);
});
