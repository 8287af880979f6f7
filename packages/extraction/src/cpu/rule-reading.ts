// What the rules make of one input, without a model: the heuristics' reading and whether a
// name in it fits two known entities. CPU-bound and linear in the text (times the known
// names), so in a worker process it runs on the CPU pool's threads (cpu-pool.ts), never on
// the event loop that renews job locks.
import { emptyDiff, type ExtractionInput, type StageAttempt } from "@recall/contracts";
import { runHeuristics } from "@recall/heuristics";
import { MAX_SLICE_CHARS } from "../documents/bounded-slices";
import { rememberEntities, type KnownMemory } from "../known-entities";

export interface RuleReading {
  attempt: StageAttempt;
  /** A name in the text that fits two or more known entities, which the rules cannot settle. */
  ambiguous?: string;
}

export interface RuleOptions {
  /** Heuristic decisions below this confidence go to a model. */
  threshold: number;
}

/** Reads one input with the rules; an input longer than a bounded slice is left to a model whole. */
export function readWithRules(input: ExtractionInput, options: RuleOptions): RuleReading {
  const ambiguous = ambiguousReference(input);
  if (input.text.length > MAX_SLICE_CHARS) {
    const reason = `longer than ${MAX_SLICE_CHARS.toLocaleString("en-US")} characters: the rules do not read it, a model does`;
    return { attempt: { diff: emptyDiff(), finished: false, reason }, ...(ambiguous ? { ambiguous } : {}) };
  }
  const outcome = runHeuristics(input, options);
  const diff = outcome.finished ? outcome.diff : outcome.partial;
  return { attempt: { diff, finished: outcome.finished, reason: outcome.reason }, ...(ambiguous ? { ambiguous } : {}) };
}

/** Many inputs read in order in one task (a history import's turns): each sees the entities the ones before it found. */
export interface RuleBatch {
  inputs: Omit<ExtractionInput, keyof KnownMemory>[];
  known: KnownMemory;
}

/** One input's reading, or why the rules failed on it (the others are read all the same). */
export type BatchReading = RuleReading | { error: string };

/** Known entities a batch carries from input to input, newest first: bounded, so each input's cost stays bounded. */
export const MAX_CARRIED_ENTITIES = 1_000;

/** The readings in input order, and the known entities after the last (for the batch's next task). */
export interface BatchRead {
  readings: BatchReading[];
  knownEntities: KnownMemory["knownEntities"];
}

/** Reads a batch's inputs in order; an input the rules throw on answers its error, and the rest go on. */
export function readBatchWithRules(batch: RuleBatch, options: RuleOptions): BatchRead {
  const known: KnownMemory = { ...batch.known, knownEntities: [...batch.known.knownEntities] };
  const readings = batch.inputs.map((input): BatchReading => {
    try {
      const reading = readWithRules({ ...input, ...known }, options);
      rememberEntities(known, reading.attempt.diff, MAX_CARRIED_ENTITIES);
      return reading;
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  });
  return { readings, knownEntities: known.knownEntities };
}

/**
 * A name in the text that fits two or more known entities ("Jordan" when Jordan Lee and
 * Jordan Smith are both known) and that no fuller name in the same text settles.
 */
export function ambiguousReference(input: ExtractionInput): string | undefined {
  for (const [form, entities] of referenceForms(input)) {
    if (entities.size < 2 || !mentions(input.text, form)) continue;
    const settled = [...entities.values()].some((name) => name.toLowerCase() !== form.toLowerCase() && mentions(input.text, name));
    if (!settled) return form;
  }
  return undefined;
}

/** Each way a known entity may be referred to (name, first name, aliases) → the entities it fits, by key → full name. */
function referenceForms(input: ExtractionInput): Map<string, Map<string, string>> {
  const forms = new Map<string, Map<string, string>>();
  for (const entity of input.knownEntities) {
    // Entities found earlier in the same document carry no id yet; name and type identify them.
    const key = entity.id || `${entity.name.toLowerCase()}|${entity.type.toLowerCase()}`;
    const names = [entity.name, entity.name.split(/\s+/)[0] ?? "", ...entity.aliases].map((n) => n.trim()).filter((n) => n.length > 1);
    for (const form of new Set(names)) {
      if (!forms.has(form)) forms.set(form, new Map());
      forms.get(form)!.set(key, entity.name);
    }
  }
  return forms;
}

/** Word-bounded and case-aware like the known-entity matcher: "Will" the person is not "will" the verb. */
function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const flags = name === name.toLowerCase() ? "iu" : "u";
  const bounded = (n: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${n}(?![\\p{L}\\p{N}_])`, flags);
  return bounded(escaped).test(text) || (flags === "u" && bounded(escaped.toUpperCase()).test(text));
}
