import { ExtractionDiff, type ExtractionInput, type HeuristicOutcome } from "@recall/contracts";
import { sliceBytes } from "@recall/contracts";
import { runHeuristics } from "./index";

const REF = new Date("2024-05-15T10:00:00Z");

const alice = { id: "e-alice", name: "Alice", type: "person", aliases: ["Al"] };
const bob = { id: "e-bob", name: "Bob", type: "person", aliases: [] };
const acme = { id: "e-acme", name: "Acme", type: "organization", aliases: [] };
const max = { id: "e-max", name: "Max", type: "pet", aliases: [] };
const bullets = { id: "i-bullets", label: "Bullet-point responses", description: "Always respond in bullet points" };
const jargon = { id: "i-jargon", label: "No technical jargon", description: "Never use technical jargon" };

const caroline = { id: "e-caroline", name: "Caroline", type: "person", aliases: [] };
const melanie = { id: "e-melanie", name: "Melanie", type: "person", aliases: ["Mel"] };

/** Two people talk; the caller names the speaker, so "I" is Caroline without a model. */
const asCaroline: Partial<ExtractionInput> = { speaker: "Caroline", knownEntities: [caroline, melanie] };

/** Alice is the only person the context knows, so "I" is Alice. */
const withAlice: Partial<ExtractionInput> = {
  knownEntities: [alice, acme, max],
  knownAttributes: [
    { entity: "Alice", key: "title", value: "CTO" },
    { entity: "Alice", key: "lives_in", value: "Berlin" },
  ],
};

interface Case {
  name: string;
  text: string;
  input?: Partial<ExtractionInput>;
  threshold?: number;
  finished: boolean;
  /** Finished or not, the diff has no items at all. */
  empty?: boolean;
  entities?: [string, string][];
  attributes?: [string, string, string][];
  relations?: [string, string, string][];
  instructions?: [string, string][];
  revocations?: [string, string][];
  /** No instruction and no revocation may come out (look-alikes). */
  noDirectives?: boolean;
  absentEntities?: string[];
  validity?: { valid_from?: string; valid_to?: string };
  reason?: RegExp;
  /** No attribute and no relation may come out (look-alikes of the personal rules). */
  noFacts?: boolean;
  /** Relation verbs that must not come out. */
  absentVerbs?: string[];
}

const cases: Case[] = [
  // The foundation demo turn.
  {
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
  },
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
  // Temporal phrases on the facts they qualify.
  {
    name: "since January",
    text: "I've lived in Berlin since January.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "lives_in", "Berlin"]],
    validity: { valid_from: "2024-01-01T00:00:00.000Z" },
  },
  {
    name: "until next quarter",
    text: "I work at Acme until next quarter.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "works_at", "Acme"]],
    validity: { valid_to: "2024-07-01T00:00:00.000Z" },
  },
  {
    name: "last year, past state",
    text: "I lived in Paris last year.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "lives_in", "Paris"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z", valid_to: "2024-01-01T00:00:00.000Z" },
  },
  {
    name: "from March 2023",
    text: "From March 2023 I worked at Globex.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "works_at", "Globex"]],
    validity: { valid_from: "2023-03-01T00:00:00.000Z" },
  },
  {
    name: "from … to …",
    text: "I worked at Initech from March 2023 to June 2023.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "works_at", "Initech"]],
    validity: { valid_from: "2023-03-01T00:00:00.000Z", valid_to: "2023-07-01T00:00:00.000Z" },
  },
  {
    name: "a move last year starts the new home",
    text: "I moved to Lisbon last year.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "lives_in", "Lisbon"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z" },
  },
  // Instructions.
  {
    name: "always",
    text: "Always respond in bullet points.",
    finished: true,
    instructions: [["Bullet-point responses", "Always respond in bullet points"]],
  },
  {
    name: "never",
    text: "Never use technical jargon.",
    finished: true,
    instructions: [["No technical jargon", "Never use technical jargon"]],
  },
  {
    name: "from now on",
    text: "From now on, label sarcasm when you detect it.",
    finished: true,
    instructions: [["Label sarcasm", "Always label sarcasm when you detect it"]],
  },
  {
    name: "keep responses under",
    text: "Keep responses under three sentences.",
    finished: true,
    instructions: [["Response length limit", "Keep responses under three sentences"]],
  },
  { name: "please don't", text: "Please don't use emojis.", finished: true, instructions: [["No emojis", "Never use emojis"]] },
  { name: "don't ever", text: "Don't ever call me Bob.", finished: true, instructions: [["Form of address", "Never call me Bob"]] },
  {
    name: "request frame",
    text: "I want you to always answer in French.",
    finished: true,
    instructions: [["French responses", "Always answer in French"]],
  },
  {
    name: "trailing from now on",
    text: "Please respond in Spanish from now on",
    finished: true,
    instructions: [["Spanish responses", "Always respond in Spanish"]],
  },
  {
    name: "an assistant's 'always' is not a user instruction",
    text: "Always respond in bullet points.",
    input: { role: "assistant" },
    finished: false,
    noDirectives: true,
  },
  // Revocations.
  { name: "stop using", text: "Stop using bullet points.", finished: true, revocations: [["i-bullets", "Bullet-point responses"]] },
  {
    name: "don't need to … anymore",
    text: "You don't need to use bullet points anymore.",
    finished: true,
    revocations: [["i-bullets", "Bullet-point responses"]],
  },
  {
    name: "no need to … any more",
    text: "No need to avoid jargon any more.",
    finished: true,
    revocations: [["i-jargon", "No technical jargon"]],
  },
  {
    name: "forget what I said about",
    text: "Forget what I said about technical jargon.",
    finished: true,
    revocations: [["i-jargon", "No technical jargon"]],
  },
  {
    name: "a revocation matching no active instruction needs a model",
    text: "Stop adding emojis.",
    finished: false,
    noDirectives: true,
    reason: /no active instruction/,
  },
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
    relations: [["Alice", "works_at", "Acme"]],
  },
  {
    name: "role and employer without a name",
    text: "I'm a software engineer at Google.",
    input: withAlice,
    finished: true,
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
    attributes: [["Alice", "email", "alice@example.com"]],
  },
  // Corrections.
  {
    name: "correction of a known title",
    text: "Actually my title is VP of Engineering.",
    input: withAlice,
    finished: true,
    attributes: [["Alice", "title", "VP of Engineering"]],
  },
  {
    name: "correction of a known home",
    text: "Correction: I live in Lisbon now.",
    input: withAlice,
    finished: true,
    relations: [["Alice", "lives_in", "Lisbon"]],
    // "now" observes the home when said; it does not date a move (the time rule), so valid time comes from the turn.
    validity: { valid_from: undefined },
  },
  {
    name: "a correction keeps the key memory uses",
    text: "Actually, my role is Head of Product.",
    input: withAlice,
    finished: true,
    attributes: [["Alice", "title", "Head of Product"]],
  },
  {
    name: "correction of a fact memory does not hold",
    text: "Actually, I work at Globex now.",
    input: withAlice,
    finished: false,
    relations: [["Alice", "works_at", "Globex"]],
    reason: /does not hold/,
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
  // Look-alikes.
  { name: "look-alike: I never said that", text: "I never said that", finished: false, noDirectives: true },
  { name: "look-alike: Always Sunny", text: "Always Sunny is my favourite show", finished: false, noDirectives: true },
  { name: "look-alike: I'll always remember", text: "I'll always remember that trip", finished: false, noDirectives: true },
  { name: "look-alike: never mind", text: "never mind", finished: true, empty: true },
  { name: "look-alike: stop it", text: "stop it, you're making me laugh", finished: true, empty: true },
  { name: "look-alike: never have I ever", text: "Never have I ever been so happy", finished: true, empty: true },
  { name: "look-alike: encouragement is not an instruction", text: "Never give up!", finished: true, empty: true },
  { name: "look-alike: the capital of France is not a job", text: "Paris is the capital of France.", finished: false, noDirectives: true },
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
    attributes: [["Bob", "role", "CFO"]],
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
  },

  // The speaker named by the caller.
  {
    name: "speaker given: 'I' is that person even with two people known",
    text: "I work at Acme.",
    input: { speaker: "Bob", knownEntities: [alice, bob] },
    finished: true,
    relations: [["Bob", "works_at", "Acme"]],
  },
  {
    name: "speaker given but not yet known",
    text: "I live in Lisbon.",
    input: { speaker: "Dana", knownEntities: [alice, bob] },
    finished: true,
    entities: [["Dana", "person"]],
    relations: [["Dana", "lives_in", "Lisbon"]],
  },
  {
    name: "role with a named speaker",
    text: "I'm a teacher.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "role", "teacher"]],
  },
  {
    name: "a move with a named speaker",
    text: "I moved to Seattle last year.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "lives_in", "Seattle"]],
    validity: { valid_from: "2023-01-01T00:00:00.000Z" },
  },
  // Tastes.
  {
    name: "likes: I love hiking",
    text: "I love hiking.",
    input: asCaroline,
    finished: true,
    entities: [["hiking", "activity"]],
    relations: [["Caroline", "likes", "hiking"]],
  },
  {
    name: "likes: frequency stays out of the name",
    text: "I really enjoy painting landscapes on weekends.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "likes", "painting landscapes"]],
  },
  {
    name: "likes: a fan of",
    text: "I'm a big fan of Nintendo games!",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "likes", "Nintendo games"]],
  },
  {
    name: "likes: a favourite title",
    text: 'My favorite book is "Charlotte\'s Web".',
    input: asCaroline,
    finished: true,
    entities: [["Charlotte's Web", "work"]],
    relations: [["Caroline", "likes", "Charlotte's Web"]],
  },
  {
    name: "likes: since childhood",
    text: "I've been into dancing since I was a kid.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "likes", "dancing"]],
  },
  {
    name: "dislikes",
    text: "I don't like horror movies.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "dislikes", "horror movies"]],
  },
  // Pets and family.
  {
    name: "pet named",
    text: "I have a dog named Max.",
    input: asCaroline,
    finished: true,
    entities: [["Max", "pet"]],
    attributes: [["Max", "species", "dog"]],
    relations: [["Caroline", "owns", "Max"]],
  },
  {
    name: "pet introduced",
    text: "Meet my dog, Max!",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "owns", "Max"]],
  },
  { name: "pet's name", text: "My cat's name is Luna.", input: asCaroline, finished: true, relations: [["Caroline", "owns", "Luna"]] },
  {
    name: "pets unnamed",
    text: "I've got two turtles.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "pet", "two turtles"]],
  },
  {
    name: "a relative named",
    text: "Sam is my brother.",
    input: asCaroline,
    finished: true,
    attributes: [["Sam", "kinship", "brother of Caroline"]],
    relations: [["Caroline", "related_to", "Sam"]],
  },
  {
    name: "relatives unnamed",
    text: "I have two kids.",
    input: asCaroline,
    finished: true,
    entities: [["Caroline's kids", "person"]],
    relations: [["Caroline", "related_to", "Caroline's kids"]],
  },
  // Outings, with the time they happened.
  {
    name: "attended yesterday",
    text: "I went to a LGBTQ support group yesterday.",
    input: asCaroline,
    finished: true,
    entities: [["LGBTQ support group", "event"]],
    relations: [["Caroline", "attended", "LGBTQ support group"]],
    validity: { valid_from: "2024-05-14T00:00:00.000Z", valid_to: "2024-05-15T00:00:00.000Z" },
  },
  {
    name: "attended, then a reaction to it",
    text: "I went to a LGBTQ support group yesterday and it was so powerful.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "attended", "LGBTQ support group"]],
  },
  {
    name: "visited last week: the whole week",
    text: "I visited Paris last week.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "visited", "Paris"]],
    validity: { valid_from: "2024-05-06T00:00:00.000Z", valid_to: "2024-05-13T00:00:00.000Z" },
  },
  {
    name: "went camping with family last weekend",
    text: "I went camping with my kids last weekend - it was a blast!",
    input: asCaroline,
    finished: true,
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
    relations: [["Caroline", "attended", "road trip to Oregon"]],
  },
  {
    name: "won, with the event's week",
    text: "I won my first chess tournament last week.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "won", "first chess tournament"]],
    validity: { valid_from: "2024-05-06T00:00:00.000Z" },
  },
  // Plans.
  {
    name: "plans: planning to, next month",
    text: "I'm planning to take a short trip next month.",
    input: asCaroline,
    finished: true,
    attributes: [["Caroline", "plans", "take a short trip"]],
    validity: { valid_from: "2024-06-01T00:00:00.000Z" },
  },
  {
    name: "plans: going to an event",
    text: "I'm going to a transgender conference this month.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "plans_to_attend", "transgender conference"]],
    validity: { valid_from: "2024-05-01T00:00:00.000Z" },
  },
  {
    name: "plans: a stay's length does not date its start",
    text: "I'm going to Paris for two weeks next month.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "plans_to_visit", "Paris"]],
    validity: { valid_from: "2024-06-01T00:00:00.000Z" },
  },
  {
    name: "for three years, in the present perfect, dates the start",
    text: "I've lived in Berlin for three years.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "lives_in", "Berlin"]],
    validity: { valid_from: "2021-05-15T10:00:00.000Z" },
  },
  // Pastimes, starts and groups.
  {
    name: "since a year",
    text: "I've been painting since 2016.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "does", "painting"]],
    validity: { valid_from: "2016-01-01T00:00:00.000Z" },
  },
  {
    name: "for three years: started three years ago",
    text: "I've been playing guitar for three years.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "does", "playing guitar"]],
    validity: { valid_from: "2021-05-15T10:00:00.000Z" },
  },
  {
    name: "started, purpose left out of the name",
    text: "I started volunteering at a local shelter last month to help out.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "started", "volunteering at a local shelter"]],
    validity: { valid_from: "2024-04-01T00:00:00.000Z" },
  },
  {
    name: "joined a group",
    text: "I joined a book club last week.",
    input: asCaroline,
    finished: true,
    entities: [["book club", "group"]],
    relations: [["Caroline", "member_of", "book club"]],
  },
  {
    name: "signed up",
    text: "I signed up for a pottery class yesterday.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "signed_up_for", "pottery class"]],
  },
  {
    name: "researching",
    text: "I'm researching adoption agencies.",
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "researching", "adoption agencies"]],
  },
  {
    name: "reading a titled book",
    text: 'I\'m currently reading a fantasy novel called "The Name of the Wind" by Patrick Rothfuss.',
    input: asCaroline,
    finished: true,
    relations: [["Caroline", "reading", "The Name of the Wind"]],
  },
  // "You" in a turn addressed by name.
  {
    name: "you: the person addressed by name",
    text: "Thanks, Melanie! You went to the beach with your kids last week.",
    input: asCaroline,
    finished: true,
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
  // Turns are finished only when every sentence is read.
  {
    name: "a read sentence beside an unread one: partial",
    text: "I love hiking. My brother wrote me a letter.",
    input: asCaroline,
    finished: false,
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

function run(c: Case): HeuristicOutcome {
  const input: ExtractionInput = {
    text: c.text,
    kind: "turn",
    role: "user",
    referenceTime: REF,
    knownEntities: [],
    knownAttributes: [],
    activeInstructions: [bullets, jargon],
    ...c.input,
  };
  return runHeuristics(input, { threshold: c.threshold ?? 0.75 });
}

/** Every evidence span slices back to its quote. */
function expectSpansSliceBack(text: string, diff: ExtractionDiff): void {
  const evidence = [...diff.entities, ...diff.attributes, ...diff.relations, ...diff.instructions, ...diff.revocations].map(
    (item) => item.evidence,
  );
  for (const e of evidence) {
    if (!e) continue;
    expect(e.start_byte).toBeDefined();
    expect(sliceBytes(text, { start_byte: e.start_byte!, end_byte: e.end_byte! })).toBe(e.quote);
  }
}

describe("runHeuristics", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const outcome = run(c);
    const diff = outcome.finished ? outcome.diff : outcome.partial;
    expect(outcome.finished).toBe(c.finished);
    expect(() => ExtractionDiff.parse(diff)).not.toThrow();
    expectSpansSliceBack(c.text, diff);
    if (c.empty) expect(Object.values(diff).every((items) => items.length === 0)).toBe(true);
    for (const [name, type] of c.entities ?? []) expect(diff.entities).toContainEqual(expect.objectContaining({ name, type }));
    for (const name of c.absentEntities ?? []) expect(diff.entities.map((e) => e.name)).not.toContain(name);
    for (const [entity, key, value] of c.attributes ?? [])
      expect(diff.attributes).toContainEqual(expect.objectContaining({ entity, key, value }));
    for (const [subject, verb, object] of c.relations ?? [])
      expect(diff.relations).toContainEqual(expect.objectContaining({ subject, verb, object }));
    if (c.instructions) expect(diff.instructions.map((i) => [i.label, i.description])).toEqual(c.instructions);
    if (c.revocations) expect(diff.revocations.map((r) => [r.instruction_id, r.matches])).toEqual(c.revocations);
    if (c.noDirectives) expect([...diff.instructions, ...diff.revocations]).toEqual([]);
    if (c.validity) {
      const fact = [...diff.attributes, ...diff.relations][0];
      expect({ valid_from: fact?.valid_from, valid_to: fact?.valid_to }).toMatchObject(c.validity);
    }
    if (c.reason) expect(outcome.reason).toMatch(c.reason);
    if (c.noFacts) expect([...diff.attributes, ...diff.relations]).toEqual([]);
    for (const verb of c.absentVerbs ?? []) expect(diff.relations.map((r) => r.verb)).not.toContain(verb);
  });

  test("the demo turn in detail: categories, evidence and confidence", () => {
    const outcome = run(cases[0]!);
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
    expect(outcome.diff.entities).toContainEqual(
      expect.objectContaining({ name: "pride parade", type: "event", evidence: { quote: "pride parade", start_byte: 21, end_byte: 33 } }),
    );
  });
});
