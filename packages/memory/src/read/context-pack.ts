// Renders POST /context's candidates as system-prompt text and packs them into the token
// budget. Active instructions go first, in the order they were given; then the other items,
// greedily by relevance per token, each where its section is rendered. Tokens are o200k BPE
// (gpt-tokenizer); the text returned is counted whole after rendering, and items are dropped
// until that count is within the budget, so the budget holds exactly, not by estimate.
// Every piece of stored text is clipped to a bounded length before it is counted: BPE on a
// long run without whitespace costs the square of its length. The answer is bounded in bytes
// too (answer-bounds.ts): each item's entry holds clipped values, and an item that would take
// the answer past its byte budget is left out as one past the token budget is.
import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
import { ITEMS_BYTES, jsonBytes } from "./answer-bounds";
import { clipFact, clipInstruction, clipUnknown, type Truncation } from "./clip-views";
import type { EntitySummary, FactView, InstructionView, UnknownView } from "./read-types";

export interface ExcerptCandidate {
  kind: "turn" | "document_node";
  id: string;
  session_id: string | null;
  seq: number | null;
  /** The speaker's name, or the turn's role when no name was given. */
  speaker: string | null;
  document_id: string | null;
  /** When the turn was said (its session's date for imported conversations), or the document received. */
  said_at: Date;
  text: string;
  score: number;
}

export interface FactCandidate {
  fact: FactView;
  entityId: string;
  score: number;
  /** The turn or document node the fact was read from, when it was read from one. */
  sourceId?: string;
}

export interface ContextCandidates {
  instructions: InstructionView[];
  facts: FactCandidate[];
  uncertainties: UnknownView[];
  excerpts: ExcerptCandidate[];
}

export interface FactSource {
  turn_id: string | null;
  document_id: string | null;
  node_id: string | null;
  fact_write_id: string | null;
}

export interface PackedFact extends Truncation {
  id: string;
  kind: "attribute" | "relation";
  subject: EntitySummary;
  predicate: string;
  /** The attribute's value, or the related entity's name. */
  value: string;
  object: EntitySummary | null;
  memory_category: string;
  valid_from: Date;
  valid_to: Date | null;
  assertion_id: string;
  source: FactSource;
}

export interface ContextSections {
  instructions: (Pick<InstructionView, "id" | "label" | "description"> & Truncation)[];
  facts: PackedFact[];
  uncertainties: (Pick<UnknownView, "id" | "about" | "reason" | "entity_id" | "key"> & Truncation)[];
  excerpts: (Omit<ExcerptCandidate, "score"> & { score: number })[];
}

export interface ContextPack {
  text: string;
  tokens: number;
  sections: ContextSections;
}

type SectionName = keyof ContextSections;

/** Section headings, in the order the text shows them. */
const HEADINGS: Record<SectionName, string> = {
  instructions: "## Instructions (always follow these)",
  facts: "## What is known",
  uncertainties: "## Open questions (unconfirmed: ask rather than assume)",
  excerpts: "## From past conversations and documents",
};
const ORDER = Object.keys(HEADINGS) as SectionName[];

/** Characters kept of one stored text; about 150 tokens of prose. */
const MAX_CHARS = { excerpt: 700, instruction: 600, fact: 400, uncertainty: 400 };
/** The fewest tokens a fact's line takes ("- A: k = v (since 2026-01-01)" and its line break). */
const MIN_FACT_TOKENS = 10;
/** An uncertainty counts this share of its entity's best fact. */
const UNCERTAINTY_SHARE = 0.5;

interface Item {
  section: SectionName;
  line: string;
  /** The line's tokens and its line break. */
  cost: number;
  /** The JSON bytes of the line (in `text`) and of the entry (in `sections`). */
  bytes: number;
  score: number;
  /** Position within its section once rendered. */
  rank: number;
  entry: ContextSections[SectionName][number];
  /** A fact's: the excerpt it was read from, and the words of its value that excerpt would have to say. */
  readFrom?: { id: string; words: string[] };
}

/**
 * Rounds of un-rendering facts their packed excerpt already says (the fact stays in `sections`, its words are not
 * paid for twice in `text`) and refilling the budget they held.
 */
const COVER_ROUNDS = 3;

export function packContext(candidates: ContextCandidates, maxTokens: number): ContextPack {
  let items = itemsOf(candidates, maxTokens);
  let chosen = choose(items, maxTokens);
  for (let round = 0; round < COVER_ROUNDS; round++) {
    const said = saidByExcerpts(chosen);
    if (said.size === 0) break;
    items = items.map((i) => (said.has(i) ? { ...i, line: "", cost: 0, readFrom: undefined } : i));
    chosen = choose(items, maxTokens);
  }
  // The line estimates can be off by a merge at a boundary; the rendered text decides.
  for (;;) {
    const text = render(chosen);
    const tokens = text === "" ? 0 : countTokens(text);
    if (tokens <= maxTokens) return { text, tokens, sections: sectionsOf(chosen) };
    chosen.pop();
  }
}

/** Instructions first while they fit, then the rest by score per token; returns them in the order chosen. */
function choose(items: Item[], maxTokens: number): Item[] {
  const rest = items.filter((i) => i.section !== "instructions" && i.score > 0).sort((a, b) => b.score / b.cost - a.score / a.cost);
  const chosen: Item[] = [];
  const opened = new Set<SectionName>();
  let used = 0;
  let bytes = 0;
  for (const item of [...items.filter((i) => i.section === "instructions"), ...rest]) {
    const heading = opened.has(item.section) || item.line === "" ? 0 : headingCost(item.section);
    if (used + heading + item.cost > maxTokens || bytes + item.bytes > ITEMS_BYTES) continue;
    used += heading + item.cost;
    bytes += item.bytes;
    if (item.line !== "") opened.add(item.section);
    chosen.push(item);
  }
  return chosen;
}

/**
 * Facts whose value the packed excerpt they were read from says word for word: the excerpt is the fact with its
 * source, so the fact's line in the text would pay twice for the same words.
 */
function saidByExcerpts(chosen: Item[]): Set<Item> {
  const excerpts = new Map(chosen.filter((i) => i.section === "excerpts").map((i) => [(i.entry as ExcerptCandidate).id, i.line]));
  const said = new Set<Item>();
  for (const i of chosen) {
    const line = i.readFrom && excerpts.get(i.readFrom.id);
    if (!line || i.readFrom!.words.length === 0) continue;
    const words = new Set(wordsOf(line));
    if (i.readFrom!.words.every((w) => words.has(w))) said.add(i);
  }
  return said;
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function render(chosen: Item[]): string {
  return ORDER.map((section) => {
    const lines = inSection(chosen, section)
      .map((i) => i.line)
      .filter((line) => line !== "");
    return lines.length === 0 ? "" : [HEADINGS[section], ...lines].join("\n");
  })
    .filter((block) => block !== "")
    .join("\n\n");
}

function sectionsOf(chosen: Item[]): ContextSections {
  const entries = <S extends SectionName>(s: S) => inSection(chosen, s).map((i) => i.entry) as ContextSections[S];
  return {
    instructions: entries("instructions"),
    facts: entries("facts"),
    uncertainties: entries("uncertainties"),
    excerpts: entries("excerpts"),
  };
}

function inSection(chosen: Item[], section: SectionName): Item[] {
  return chosen.filter((i) => i.section === section).sort((a, b) => a.rank - b.rank);
}

const headingCosts = new Map<SectionName, number>();
function headingCost(section: SectionName): number {
  if (!headingCosts.has(section)) headingCosts.set(section, countTokens(HEADINGS[section]) + 2);
  return headingCosts.get(section)!;
}

function item(section: SectionName, line: string, score: number, rank: number, entry: Item["entry"]): Item {
  return { section, line, cost: countTokens(line) + 1, bytes: jsonBytes(line) + jsonBytes(entry), score, rank, entry };
}

/**
 * The facts that could be packed: those with some relevance, at most as many of the best as the budget holds lines
 * of the shortest a fact renders to. Tokenising only these keeps a dense entity's hundreds of facts off the clock.
 */
function mostRelevant(facts: FactCandidate[], maxTokens: number): FactCandidate[] {
  const room = Math.ceil(maxTokens / MIN_FACT_TOKENS);
  return facts
    .filter((f) => f.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, room);
}

function itemsOf(c: ContextCandidates, maxTokens: number): Item[] {
  const instructions = c.instructions.map((i, rank) => {
    const { id, label, description, truncated } = clipInstruction(i);
    const entry = { id, label, description, ...(truncated ? { truncated } : {}) };
    return item("instructions", `- ${clip(`${i.label}: ${i.description}`, MAX_CHARS.instruction)}`, Infinity, rank, entry);
  });
  const facts = mostRelevant(c.facts, maxTokens)
    .sort((a, b) => byText(factLine(a.fact), factLine(b.fact)))
    .map((f, rank) => {
      const packed = item("facts", `- ${clip(factLine(f.fact), MAX_CHARS.fact)}`, f.score, rank, packedFact(clipFact(f.fact)));
      const value = f.fact.kind === "attribute" ? f.fact.value : f.fact.object.name;
      return f.sourceId ? { ...packed, readFrom: { id: f.sourceId, words: wordsOf(value) } } : packed;
    });
  const entityScore = new Map<string, number>();
  for (const f of c.facts) entityScore.set(f.entityId, Math.max(entityScore.get(f.entityId) ?? 0, f.score));
  const uncertainties = c.uncertainties.map((u, rank) =>
    item(
      "uncertainties",
      `- ${clip(`${u.about}: ${u.reason}`, MAX_CHARS.uncertainty)}`,
      UNCERTAINTY_SHARE * (entityScore.get(u.entity_id ?? "") ?? 0),
      rank,
      uncertaintyEntry(u),
    ),
  );
  return [...instructions, ...facts, ...uncertainties, ...excerptItems(c.excerpts)];
}

/** Excerpts read in the order they were said; the same text twice is packed once. */
function excerptItems(excerpts: ExcerptCandidate[]): Item[] {
  const seen = new Set<string>();
  const chronological = [...excerpts].sort((a, b) => a.said_at.getTime() - b.said_at.getTime() || (a.seq ?? 0) - (b.seq ?? 0));
  return chronological.flatMap((e, rank) => {
    const text = clip(e.text, MAX_CHARS.excerpt);
    if (seen.has(text)) return [];
    seen.add(text);
    const where = e.kind === "turn" ? (e.speaker ?? "turn") : "document";
    return [item("excerpts", `- [${day(e.said_at)}, ${clip(where, 80)}] ${text}`, e.score, rank, { ...e, text })];
  });
}

function factLine(f: FactView): string {
  const since = `since ${day(f.valid_from)}${f.valid_to ? `, until ${day(f.valid_to)}` : ""}`;
  if (f.kind === "attribute") return `${f.entity.name}: ${words(f.key)} = ${f.value} (${since})`;
  return `${f.subject.name} ${words(f.predicate)} ${f.object.name} (${since})`;
}

function uncertaintyEntry(u: UnknownView): ContextSections["uncertainties"][number] {
  const { id, about, reason, entity_id, key, truncated } = clipUnknown(u);
  return { id, about, reason, entity_id, key, ...(truncated ? { truncated } : {}) };
}

function packedFact(f: FactView & Truncation): PackedFact {
  const common = {
    id: f.id,
    kind: f.kind,
    memory_category: f.memory_category,
    valid_from: f.valid_from,
    valid_to: f.valid_to,
    assertion_id: f.assertion_id,
    source: { turn_id: null, document_id: null, node_id: null, fact_write_id: null },
    ...(f.truncated ? { truncated: f.truncated } : {}),
  };
  if (f.kind === "attribute") return { ...common, subject: f.entity, predicate: f.key, value: f.value, object: null };
  return { ...common, subject: f.subject, predicate: f.predicate, value: f.object.name, object: f.object };
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function words(key: string): string {
  return key.replace(/_/g, " ");
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * One line, at most `max` characters, cut at a word where there is one. The slice comes first, so
 * the work is bounded by `max` whatever the stored text's length.
 */
export function clip(text: string, max: number): string {
  const flat = text
    .slice(0, max * 2)
    .replace(/\s+/g, " ")
    .trim();
  if (flat.length <= max && text.length <= max * 2) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
