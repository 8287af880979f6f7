// Statements about oneself, the open reader (first-person statements read by their shape), and commentary look-alikes.
import { alice, asCaroline, bob, type Case, testCases, withAlice } from "../testing/heuristic-cases";

const cases: Case[] = [
  // Self-statements.
  { name: "I am Alice", text: "I am Alice", finished: true, entities: [["Alice", "person"]] },
  {
    name: "my name is … and I live in …",
    text: "My name is Carol Danvers and I live in Boston.",
    finished: true,
    entities: [
      ["Carol Danvers", "person"],
      ["Boston", "location"],
    ],
    relations: [["Carol Danvers", "lives_in", "Boston"]],
  },
  {
    name: "I work at, speaker is the one known person",
    text: "I work at Acme.",
    input: withAlice,
    finished: true,
    entities: [
      ["Acme", "organization"],
      ["Alice", "person"],
    ],
    relations: [["Alice", "works_at", "Acme"]],
  },
  {
    name: "role and employer without a name",
    text: "I'm a software engineer at Google.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Google", "organization"],
    ],
    attributes: [["Alice", "role", "software engineer"]],
    relations: [["Alice", "works_at", "Google"]],
  },
  {
    name: "X is the Y of Z",
    text: "Bob is the CFO of Initech.",
    finished: true,
    entities: [
      ["Bob", "person"],
      ["Initech", "organization"],
    ],
    attributes: [["Bob", "role", "CFO"]],
    relations: [["Bob", "works_at", "Initech"]],
  },
  {
    name: "department stays in the role",
    text: "I'm the VP of Engineering at Initech.",
    input: withAlice,
    finished: true,
    entities: [
      ["Alice", "person"],
      ["Initech", "organization"],
    ],
    attributes: [["Alice", "role", "VP of Engineering"]],
    relations: [["Alice", "works_at", "Initech"]],
  },
  {
    name: "two known people: who 'I' is needs a model",
    text: "I work at Acme.",
    input: { knownEntities: [alice, bob] },
    finished: false,
    entities: [["Acme", "organization"]],
    reason: /who 'I' refers to/,
  },
  {
    name: "email",
    text: "My email is alice@example.com",
    input: withAlice,
    finished: true,
    entities: [["Alice", "person"]],
    attributes: [["Alice", "email", "alice@example.com"]],
  },
  // The open reader: first-person statements read by their shape, the speaker's words kept as the value.
  {
    name: "open: an ongoing activity, with commentary beside it dropped",
    text: "I'm still volunteering at the homeless shelter. It's fulfilling to lend a hand.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "doing", "volunteering at the homeless shelter"]],
  },
  {
    name: "open: something done, and a question back to the listener",
    text: "We made pizza! Have you made anything lately?",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "did", "made pizza"]],
  },
  {
    name: "open: a lead-in and a date",
    text: "By the way, last Friday I finished the presentation for the producers.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "did", "finished the presentation for the producers"]],
    validity: { valid_from: "2024-05-10T00:00:00.000Z", valid_to: "2024-05-11T00:00:00.000Z" },
  },
  {
    name: "open: a dropped subject before a past tense",
    text: "Took my turtles out for a walk.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "did", "Took my turtles out for a walk"]],
  },
  {
    name: "open: the value keeps the speaker's spelling, contractions and all",
    text: "I'm starting a dance studio 'cause I'm passionate about dancing.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "started", "starting a dance studio 'cause I'm passionate about dancing"]],
  },
  {
    name: "open: a clause opening on a gerund is ongoing, and a time phrase leaves no word behind",
    text: "Volunteering at the food bank every Saturday.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "doing", "Volunteering at the food bank"]],
  },
  {
    name: "open: a gerund that is the subject of its own verb is not a deed",
    text: "Gardening is my escape.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "open: a goal",
    text: "I hope to build my own family.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "goal", "hope to build my own family"]],
  },
  {
    name: "open: a stricter operator threshold sends it to a model",
    text: "We made pizza!",
    input: asCaroline,
    threshold: 0.8,
    finished: false,
    attributes: [["Caroline", "did", "made pizza"]],
  },
  // Look-alikes of the open reader and of commentary.
  { name: "open look-alike: modal and negation", text: "I can't make it to the game.", input: asCaroline, finished: false, noFacts: true },
  {
    name: "open look-alike: a hypothetical",
    text: "I would get two turtles today if I could!",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "open look-alike: a thought, not a deed",
    text: "I think I'm getting better at painting.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  { name: "open look-alike: a state of mind", text: "I'm so stoked for the game.", input: asCaroline, finished: false, noFacts: true },
  {
    name: "open look-alike: an object that points back",
    text: "I found it really helpful.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "open look-alike: an abstract object",
    text: "I'm putting in my best effort.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "open look-alike: advice to the listener",
    text: "I recommend finding a fantasy series.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "open look-alike: agreeing is no deed",
    text: "Agreed, Melanie! Keep it up!",
    input: asCaroline,
    noFacts: true,
    finished: true,
    empty: true,
  },
  {
    name: "commentary look-alike: a name beside facts is kept for a model",
    text: "We made pizza! Jon loved the toppings.",
    input: asCaroline,
    finished: false,
    attributes: [["Caroline", "did", "made pizza"]],
  },
  {
    name: "commentary look-alike: alone, a generalisation is not swallowed",
    text: "Working out together is a great way of bonding as a family.",
    input: asCaroline,
    finished: false,
  },
];

describe("runHeuristics", () => {
  testCases(cases);
});
