// Readings of jobs, moves, household pets and named relatives (issue 44, part 3), and their look-alikes.
import { asCaroline, type Case, testCases } from "../testing/heuristic-cases";

const cases: Case[] = [
  // Jobs.
  {
    name: "job: a new job, in the speaker's words",
    text: "I finally landed a new job at a flower shop.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "job", "landed a new job at a flower shop"]],
  },
  {
    name: "job: a promotion",
    text: "I got promoted at the hospital!",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "job", "got promoted at the hospital"]],
  },
  {
    name: "job: the purpose clause after it is cut off at the next clause",
    text: "I took a part-time job at the library while I finish my degree.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "job", "took a part-time job at the library"]],
  },
  {
    name: "job: leaving one is a change too, dated",
    text: "I quit my job at the warehouse last week.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "job", "quit my job at the warehouse"]],
    validity: { valid_from: "2024-05-06T00:00:00.000Z" },
  },
  // Homes and moves.
  {
    name: "moved: a move with a resolved date",
    text: "We moved into a bigger apartment last month.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "home", "moved into a bigger apartment"]],
    validity: { valid_from: "2024-04-01T00:00:00.000Z" },
  },
  {
    // The clause splitter cuts "My husband" off at "and": the move is committed, the husband waits for a model.
    name: "moved: my partner and I",
    text: "My husband and I relocated to a farmhouse outside Leeds.",
    input: asCaroline,
    finished: false,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "home", "relocated to a farmhouse outside Leeds"]],
  },
  {
    name: "moved: a planned move needs its date",
    text: "I'm moving to Lisbon in September.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "home", "moving to Lisbon"]],
    validity: { valid_from: "2024-09-01T00:00:00.000Z" },
  },
  // Household pets.
  {
    name: "pet: we adopted a named puppy",
    text: "We adopted a puppy named Waffles.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Waffles", "pet"],
    ],
    relations: [["Caroline", "owns", "Waffles"]],
    attributes: [["Waffles", "species", "puppy"]],
  },
  {
    name: "pet: my kids and I rescued two kittens",
    text: "My kids and I rescued two kittens.",
    input: asCaroline,
    finished: false,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "pet", "two kittens"]],
  },
  // A named relative opening a longer clause: who they are is read, the rest waits for a model.
  {
    name: "kin: my cousin Rosa, then what she did",
    text: "My cousin Rosa just opened a taco truck.",
    input: asCaroline,
    finished: false,
    entities: [
      ["Caroline", "person"],
      ["Rosa", "person"],
    ],
    relations: [["Caroline", "related_to", "Rosa"]],
    attributes: [["Rosa", "kinship", "cousin of Caroline"]],
  },
  // Look-alikes.
  { name: "look-alike: moving a thing", text: "I moved it to the top shelf.", input: asCaroline, finished: false, noFacts: true },
  {
    name: "look-alike: a move pointing back into the talk",
    text: "We moved to that place you told me about.",
    input: asCaroline,
    finished: false,
    absentVerbs: ["home"],
  },
  {
    name: "look-alike: a planned move without a date",
    text: "I'm moving to a new desk.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "look-alike: a part in a play is no job",
    text: "I got the role of Juliet in the school play.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "look-alike: 'my' before a common word",
    text: "My friend Jake, honestly, no idea.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
];

describe("runHeuristics: life changes", () => {
  testCases(cases);
});
