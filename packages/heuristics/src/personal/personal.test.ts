// The personal rules: tastes, pets and family, outings with their time, plans, pastimes, and their look-alikes.
import { asCaroline, type Case, testCases } from "../testing/heuristic-cases";

const cases: Case[] = [
  // Tastes.
  {
    name: "likes: I love hiking",
    text: "I love hiking.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["hiking", "activity"],
    ],
    relations: [["Caroline", "likes", "hiking"]],
  },
  {
    name: "likes: frequency stays out of the name",
    text: "I really enjoy painting landscapes on weekends.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["painting landscapes", "activity"],
    ],
    relations: [["Caroline", "likes", "painting landscapes"]],
  },
  {
    name: "likes: a fan of",
    text: "I'm a big fan of Nintendo games!",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Nintendo games", "topic"],
    ],
    relations: [["Caroline", "likes", "Nintendo games"]],
  },
  {
    name: "likes: a favourite title",
    text: 'My favorite book is "Charlotte\'s Web".',
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Charlotte's Web", "work"],
    ],
    relations: [["Caroline", "likes", "Charlotte's Web"]],
  },
  {
    name: "likes: since childhood",
    text: "I've been into dancing since I was a kid.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["dancing", "activity"],
    ],
    relations: [["Caroline", "likes", "dancing"]],
  },
  {
    name: "dislikes",
    text: "I don't like horror movies.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["horror movies", "topic"],
    ],
    relations: [["Caroline", "dislikes", "horror movies"]],
  },
  // Pets and family.
  {
    name: "pet named",
    text: "I have a dog named Max.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Max", "pet"],
    ],
    attributes: [["Max", "species", "dog"]],
    relations: [["Caroline", "owns", "Max"]],
  },
  {
    name: "pet introduced",
    text: "Meet my dog, Max!",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Max", "pet"],
    ],
    attributes: [["Max", "species", "dog"]],
    relations: [["Caroline", "owns", "Max"]],
  },
  {
    name: "pet's name",
    text: "My cat's name is Luna.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Luna", "pet"],
    ],
    attributes: [["Luna", "species", "cat"]],
    relations: [["Caroline", "owns", "Luna"]],
  },
  {
    name: "pets unnamed",
    text: "I've got two turtles.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "pet", "two turtles"]],
  },
  {
    name: "a relative named",
    text: "Sam is my brother.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Sam", "person"],
    ],
    attributes: [["Sam", "kinship", "brother of Caroline"]],
    relations: [["Caroline", "related_to", "Sam"]],
  },
  {
    name: "relatives unnamed",
    text: "I have two kids.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline's kids", "person"],
      ["Caroline", "person"],
    ],
    relations: [["Caroline", "related_to", "Caroline's kids"]],
  },
  // Outings, with the time they happened.
  {
    name: "attended yesterday",
    text: "I went to a LGBTQ support group yesterday.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["LGBTQ support group", "event"],
    ],
    relations: [["Caroline", "attended", "LGBTQ support group"]],
    validity: { valid_from: "2024-05-14T00:00:00.000Z", valid_to: "2024-05-15T00:00:00.000Z" },
  },
  {
    name: "attended, then a reaction to it",
    text: "I went to a LGBTQ support group yesterday and it was so powerful.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["LGBTQ support group", "event"],
    ],
    relations: [["Caroline", "attended", "LGBTQ support group"]],
  },
  {
    name: "visited last week: the whole week",
    text: "I visited Paris last week.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Paris", "location"],
    ],
    relations: [["Caroline", "visited", "Paris"]],
    validity: { valid_from: "2024-05-06T00:00:00.000Z", valid_to: "2024-05-13T00:00:00.000Z" },
  },
  {
    name: "went camping with family last weekend",
    text: "I went camping with my kids last weekend - it was a blast!",
    input: asCaroline,
    finished: true,
    entities: [
      ["camping", "activity"],
      ["Caroline's kids", "person"],
      ["Caroline", "person"],
    ],
    relations: [
      ["Caroline", "went", "camping"],
      ["Caroline", "related_to", "Caroline's kids"],
    ],
    validity: { valid_from: "2024-05-11T00:00:00.000Z", valid_to: "2024-05-13T00:00:00.000Z" },
  },
  {
    name: "chat drops the 'I' before a past tense",
    text: "Just got back from a road trip to Oregon!",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["road trip to Oregon", "event"],
    ],
    relations: [["Caroline", "attended", "road trip to Oregon"]],
  },
  {
    name: "won, with the event's week",
    text: "I won my first chess tournament last week.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["first chess tournament", "event"],
    ],
    relations: [["Caroline", "won", "first chess tournament"]],
    validity: { valid_from: "2024-05-06T00:00:00.000Z" },
  },
  // Plans.
  {
    name: "plans: planning to, next month",
    text: "I'm planning to take a short trip next month.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline", "person"]],
    attributes: [["Caroline", "plans", "take a short trip"]],
    validity: { valid_from: "2024-06-01T00:00:00.000Z" },
  },
  {
    name: "plans: going to an event",
    text: "I'm going to a transgender conference this month.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["transgender conference", "event"],
    ],
    relations: [["Caroline", "plans_to_attend", "transgender conference"]],
    validity: { valid_from: "2024-05-01T00:00:00.000Z" },
  },
  {
    name: "plans: a stay's length does not date its start",
    text: "I'm going to Paris for two weeks next month.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["Paris", "location"],
    ],
    relations: [["Caroline", "plans_to_visit", "Paris"]],
    validity: { valid_from: "2024-06-01T00:00:00.000Z" },
  },
  {
    name: "for three years, in the present perfect, dates the start",
    text: "I've lived in Berlin for three years.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Berlin", "location"],
      ["Caroline", "person"],
    ],
    relations: [["Caroline", "lives_in", "Berlin"]],
    validity: { valid_from: "2021-05-15T10:00:00.000Z" },
  },
  // Pastimes, starts and groups.
  {
    name: "since a year",
    text: "I've been painting since 2016.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["painting", "activity"],
    ],
    relations: [["Caroline", "does", "painting"]],
    validity: { valid_from: "2016-01-01T00:00:00.000Z" },
  },
  {
    name: "for three years: started three years ago",
    text: "I've been playing guitar for three years.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["playing guitar", "activity"],
    ],
    relations: [["Caroline", "does", "playing guitar"]],
    validity: { valid_from: "2021-05-15T10:00:00.000Z" },
  },
  {
    name: "started, purpose left out of the name",
    text: "I started volunteering at a local shelter last month to help out.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["volunteering at a local shelter", "activity"],
    ],
    relations: [["Caroline", "started", "volunteering at a local shelter"]],
    validity: { valid_from: "2024-04-01T00:00:00.000Z" },
  },
  {
    name: "joined a group",
    text: "I joined a book club last week.",
    input: asCaroline,
    finished: true,
    entities: [
      ["book club", "group"],
      ["Caroline", "person"],
    ],
    relations: [["Caroline", "member_of", "book club"]],
  },
  {
    name: "signed up",
    text: "I signed up for a pottery class yesterday.",
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["pottery class", "event"],
    ],
    relations: [["Caroline", "signed_up_for", "pottery class"]],
  },
  {
    name: "researching",
    text: "I'm researching adoption agencies.",
    input: asCaroline,
    finished: true,
    entities: [
      ["adoption agencies", "topic"],
      ["Caroline", "person"],
    ],
    relations: [["Caroline", "researching", "adoption agencies"]],
  },
  {
    name: "reading a titled book",
    text: 'I\'m currently reading a fantasy novel called "The Name of the Wind" by Patrick Rothfuss.',
    input: asCaroline,
    finished: true,
    entities: [
      ["Caroline", "person"],
      ["The Name of the Wind", "work"],
    ],
    relations: [["Caroline", "reading", "The Name of the Wind"]],
  },
  // Look-alikes of the personal rules.
  { name: "look-alike: I love how you paint", text: "I love how you paint.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: I'd love to go is a wish", text: "I'd love to go!", input: asCaroline, finished: true, noFacts: true },
  { name: "look-alike: a question states nothing", text: "Do you like hiking?", input: asCaroline, finished: true, empty: true },
  {
    name: "look-alike: a longer question about the listener's taste",
    text: "Have you ever tried rock climbing or bouldering?",
    input: asCaroline,
    finished: true,
    empty: true,
  },
  { name: "look-alike: negation", text: "I don't have a dog.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: never went", text: "I never went to the concert.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: used to", text: "I used to love hiking.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: love it when", text: "I love it when you make ice cream.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: the ocean in a photo", text: "I love the ocean.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: went to see", text: "I went to see a concert.", input: asCaroline, finished: false, absentVerbs: ["attended"] },
  { name: "look-alike: company unknown", text: "I went to school with him.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: a vague event", text: "I recently went to an event.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: going to try", text: "I'm going to try.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: not into", text: "I'm not into sports.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: a feeling is no pet", text: "I have a feeling it'll work out.", input: asCaroline, finished: false, noFacts: true },
  { name: "look-alike: 'my' object", text: "I love my job.", input: asCaroline, finished: false, noFacts: true },
];

describe("runHeuristics", () => {
  testCases(cases);
});
