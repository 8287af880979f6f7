// Readings of occasions and stances added for issue 44, part 3 (sentences written for them, not taken from a
// dataset): a good time had somewhere, an event of one's own, an event named by what it is for, enjoying,
// being involved in, doing an activity; and their look-alikes.
import { asCaroline, type Case, testCases } from "../testing/heuristic-cases";

const cases: Case[] = [
  {
    name: "occasion: a good time at an event",
    text: "We had a wonderful time at the street fair.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["street fair", "event"],
    ],
    relations: [["Caroline", "attended", "street fair"]],
  },
  {
    name: "occasion: the speaker's own trip, 'our' left out of its name",
    text: "I had a blast on our fishing trip.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["fishing trip", "event"],
    ],
    relations: [["Caroline", "attended", "fishing trip"]],
  },
  {
    name: "occasion: fun at a place is a visit",
    text: "We had so much fun at the aquarium.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["aquarium", "location"],
    ],
    relations: [["Caroline", "visited", "aquarium"]],
  },
  {
    name: "had: an event of one's own, named by what it was for, dated",
    text: "I had an interview for a nursing position yesterday.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["interview for a nursing position", "event"],
    ],
    relations: [["Caroline", "had", "interview for a nursing position"]],
    validity: { valid_from: "2024-05-14T00:00:00.000Z" },
  },
  {
    name: "venue: a meeting named by its subject",
    text: "I went to a town meeting about the new bike lanes.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["town meeting about the new bike lanes", "event"],
    ],
    relations: [["Caroline", "attended", "town meeting about the new bike lanes"]],
  },
  {
    name: "venue: a '+' inside a word is part of a name",
    text: "I attended a C++ workshop.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["C++ workshop", "event"],
    ],
    relations: [["Caroline", "attended", "C++ workshop"]],
  },
  {
    name: "likes: enjoying something lately",
    text: "I've been enjoying watercolor painting.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["watercolor painting", "topic"],
    ],
    relations: [["Caroline", "likes", "watercolor painting"]],
  },
  {
    name: "involved: taking part in a cause",
    text: "I'm involved in habitat restoration.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["habitat restoration", "topic"],
    ],
    relations: [["Caroline", "involved_in", "habitat restoration"]],
  },
  {
    name: "does: an activity one is doing",
    text: "I'm doing weightlifting at the rec center.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["weightlifting at the rec center", "activity"],
    ],
    relations: [["Caroline", "does", "weightlifting at the rec center"]],
  },
  {
    name: "researching: 'as a career' is a purpose, not part of the topic",
    text: "I've been looking into dental hygiene as a career.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["dental hygiene", "topic"],
    ],
    relations: [["Caroline", "researching", "dental hygiene"]],
  },
  {
    name: "goal: my dream is to …, in the speaker's words",
    text: "My dream has always been to sail around Iceland.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "goal", "sail around Iceland"]],
  },
  // Look-alikes.
  {
    name: "look-alike: a good time with someone names no occasion",
    text: "I had a great time with you.",
    input: asCaroline,
    finished: true,
    empty: true,
  },
  {
    name: "look-alike: having a question is no event",
    text: "I had a question for the landlord.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  {
    name: "look-alike: a single-word event says not which one",
    text: "I had a meeting.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  { name: "look-alike: doing one's best is no activity", text: "I'm doing my best.", input: asCaroline, finished: true, empty: true },
  { name: "look-alike: doing fine", text: "I'm doing fine these days, just tired.", input: asCaroline, finished: false, noFacts: true },
  {
    name: "look-alike: fun at something pointed at",
    text: "We had fun at that place you mentioned.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
  { name: "look-alike: a '+' on its own", text: "I went to the + sign.", input: asCaroline, finished: false, noFacts: true },
  {
    name: "look-alike: a goal with nothing concrete in it",
    text: "My goal is to do my best.",
    input: asCaroline,
    finished: false,
    noFacts: true,
  },
];

describe("runHeuristics: occasions and stances", () => {
  testCases(cases);
});
