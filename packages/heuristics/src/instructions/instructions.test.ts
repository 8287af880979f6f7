// Standing instructions and their revocations, and the sentences that only look like either.
import { type Case, testCases } from "../testing/heuristic-cases";

const cases: Case[] = [
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
  // Look-alikes.
  { name: "look-alike: I never said that", text: "I never said that", finished: false, noDirectives: true },
  { name: "look-alike: Always Sunny", text: "Always Sunny is my favourite show", finished: false, noDirectives: true },
  { name: "look-alike: I'll always remember", text: "I'll always remember that trip", finished: false, noDirectives: true },
  { name: "look-alike: never mind", text: "never mind", finished: true, empty: true },
  { name: "look-alike: stop it", text: "stop it, you're making me laugh", finished: true, empty: true },
  { name: "look-alike: never have I ever", text: "Never have I ever been so happy", finished: true, empty: true },
  { name: "look-alike: encouragement is not an instruction", text: "Never give up!", finished: true, empty: true },
  { name: "look-alike: the capital of France is not a job", text: "Paris is the capital of France.", finished: false, noDirectives: true },
];

describe("runHeuristics", () => {
  testCases(cases);
});
