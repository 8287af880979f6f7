// Inputs whose facts are known in advance, and a scripted model that reads them, for tests that run
// hundreds of inputs through the real extraction (fault tests, the soak). Every fact sentence is a
// "marker": `Kestrel-0042 feeds Heron-0042.` or `Kestrel-0042 works at Heron-0007.` (works_at is
// single-valued, so later inputs supersede earlier ones), and `Always mention ticket T-0042.` (an
// instruction). No heuristic reads these sentences, so each input really goes to the model, and the
// model's answer quotes each marker from its own input (or, in a window, its own turn).
import type { FakeLlmResponse, FakeRecordedRequest, FakeResponder } from "@recall/test-support";
import { promptText } from "@recall/test-support";

export interface Marker {
  subject: string;
  verb: "feeds" | "works_at";
  object: string;
  /** The sentence, exactly as it appears in the input. */
  sentence: string;
}

const FEEDS = /\b([A-Z][a-z]+-\d{4}) feeds ([A-Z][a-z]+-\d{4})\./g;
const WORKS_AT = /\b([A-Z][a-z]+-\d{4}) works at ([A-Z][a-z]+-\d{4})\./g;
const ALWAYS = /\bAlways mention ticket (T-\d{4})\./g;

/** A marker relation for input `n`: a fresh `feeds` pair, and for every third input a `works_at` of a recurring subject. */
export function markersFor(n: number, subjects = 24): Marker[] {
  const id = String(n).padStart(4, "0");
  const markers: Marker[] = [feeds(`Kestrel-${id}`, `Heron-${id}`)];
  if (n % 3 === 0) {
    const person = `Wren-${String(n % subjects).padStart(4, "0")}`;
    const employer = `Vireo-${String(n % 7).padStart(4, "0")}`;
    markers.push({ subject: person, verb: "works_at", object: employer, sentence: `${person} works at ${employer}.` });
  }
  return markers;
}

function feeds(subject: string, object: string): Marker {
  return { subject, verb: "feeds", object, sentence: `${subject} feeds ${object}.` };
}

/** Input text around its markers (filler no rule reads as a fact), optionally with a standing instruction. */
export function markerText(markers: Marker[], instruction?: string): string {
  const facts = markers.map((m) => m.sentence).join(" ");
  return `${facts} That was in the nightly notes.${instruction ? ` Always mention ticket ${instruction}.` : ""}`;
}

/** The input text of a prompt (its `<<< … >>>` blocks), without what it says is already known. */
export function promptInput(prompt: string): string {
  return promptBlocks(prompt)
    .map((b) => b.text)
    .join("\n");
}

/** Numbered text blocks of a prompt: one for a single input, one per turn (with its index) for a window. */
function promptBlocks(prompt: string): { turn?: number; text: string }[] {
  const blocks: { turn?: number; text: string }[] = [];
  const pattern = /(?:^\[(\d+)\] \([^\n]*\)\n)?<<<\n([\s\S]*?)\n>>>/gm;
  for (const match of prompt.matchAll(pattern)) {
    blocks.push({ turn: match[1] === undefined ? undefined : Number(match[1]), text: match[2]! });
  }
  return blocks;
}

const RELATION = { memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null } as const;

/** The diff a careful model gives for the prompt's markers; a window's items name their turn. */
export function markerAnswer(prompt: string): Record<string, unknown[]> {
  const answer: Record<string, unknown[]> = {
    entities: [],
    attributes: [],
    relations: [],
    instructions: [],
    revocations: [],
    uncertainties: [],
  };
  for (const block of promptBlocks(prompt)) {
    const own = block.turn === undefined ? {} : { turn: block.turn };
    for (const m of block.text.matchAll(FEEDS)) {
      answer.relations!.push({ ...own, subject: m[1], verb: "feeds", object: m[2], evidence: m[0], ...RELATION });
    }
    for (const m of block.text.matchAll(WORKS_AT)) {
      answer.relations!.push({
        ...own,
        subject: m[1],
        verb: "works_at",
        object: m[2],
        evidence: m[0],
        ...RELATION,
        memory_category: "identity",
      });
    }
    for (const m of block.text.matchAll(ALWAYS)) {
      answer.instructions!.push({ ...own, label: `Mention ${m[1]}`, description: `Always mention ticket ${m[1]}`, evidence: m[0] });
    }
  }
  return answer;
}

export interface MarkerModelOptions {
  /** How long each answer takes (a model is not instant; fault tests kill workers while they wait). */
  delayMs?: number;
}

/** A fake-llm-server responder answering every chat request with its markers. */
export function markerModel({ delayMs = 0 }: MarkerModelOptions = {}): FakeResponder {
  return (request: FakeRecordedRequest): FakeLlmResponse => ({ json: markerAnswer(promptText(request)), delayMs });
}
