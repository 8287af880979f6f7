// The table the heuristics' tests share: who the context knows, the case shape, how a case is run and what every
// outcome must satisfy (a diff that parses, evidence that slices back to its quote, the case's expectations). The
// cases themselves sit beside the rules they exercise.
import { ExtractionDiff, sliceBytes, type ExtractionInput, type HeuristicOutcome } from "@recall/contracts";
import { runHeuristics } from "../run-heuristics";

export const REF = new Date("2024-05-15T10:00:00Z");

export const alice = { id: "e-alice", name: "Alice", type: "person", aliases: ["Al"] };
export const bob = { id: "e-bob", name: "Bob", type: "person", aliases: [] };
export const acme = { id: "e-acme", name: "Acme", type: "organization", aliases: [] };
export const max = { id: "e-max", name: "Max", type: "pet", aliases: [] };
export const bullets = { id: "i-bullets", label: "Bullet-point responses", description: "Always respond in bullet points" };
export const jargon = { id: "i-jargon", label: "No technical jargon", description: "Never use technical jargon" };

export const caroline = { id: "e-caroline", name: "Caroline", type: "person", aliases: [] };
export const melanie = { id: "e-melanie", name: "Melanie", type: "person", aliases: ["Mel"] };

/** Two people talk; the caller names the speaker, so "I" is Caroline without a model. */
export const asCaroline: Partial<ExtractionInput> = { speaker: "Caroline", knownEntities: [caroline, melanie] };

/** Alice is the only person the context knows, so "I" is Alice. */
export const withAlice: Partial<ExtractionInput> = {
  knownEntities: [alice, acme, max],
  knownAttributes: [
    { entity: "Alice", key: "title", value: "CTO" },
    { entity: "Alice", key: "lives_in", value: "Berlin" },
  ],
};

export interface Case {
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
  uncertainties?: [string, string][];
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

export function run(c: Case): HeuristicOutcome {
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

const sorted = <T>(items: T[]): T[] => [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Every item of a diff, as the cases write them; facts and entities sorted (their order is not a rule). */
function itemsOf(diff: ExtractionDiff) {
  return {
    entities: sorted(diff.entities.map((e) => [e.name, e.type])),
    attributes: sorted(diff.attributes.map((a) => [a.entity, a.key, a.value])),
    relations: sorted(diff.relations.map((r) => [r.subject, r.verb, r.object])),
    instructions: diff.instructions.map((i) => [i.label, i.description]),
    revocations: diff.revocations.map((r) => [r.instruction_id, r.matches]),
    uncertainties: diff.uncertainties.map((u) => [u.about, u.reason]),
  };
}

/** What a case lists, as the whole output: a list it leaves out is expected empty. */
function expectedItems(c: Case): ReturnType<typeof itemsOf> {
  return {
    entities: sorted(c.entities ?? []),
    attributes: sorted(c.attributes ?? []),
    relations: sorted(c.relations ?? []),
    instructions: c.instructions ?? [],
    revocations: c.revocations ?? [],
    uncertainties: c.uncertainties ?? [],
  };
}

/** One test per case, named by the case. A case's lists are its whole output: an item it does not list fails it. */
export function testCases(cases: Case[]): void {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const outcome = run(c);
    const diff = outcome.finished ? outcome.diff : outcome.partial;
    expect(outcome.finished).toBe(c.finished);
    expect(() => ExtractionDiff.parse(diff)).not.toThrow();
    expectSpansSliceBack(c.text, diff);
    expect(itemsOf(diff)).toEqual(expectedItems(c));
    // The look-alike markers below follow from the whole output; they say what a case guards against.
    if (c.empty) expect(Object.values(diff).every((items) => items.length === 0)).toBe(true);
    for (const name of c.absentEntities ?? []) expect(diff.entities.map((e) => e.name)).not.toContain(name);
    if (c.noDirectives) expect([...diff.instructions, ...diff.revocations]).toEqual([]);
    if (c.validity) {
      const fact = [...diff.attributes, ...diff.relations][0];
      expect({ valid_from: fact?.valid_from, valid_to: fact?.valid_to }).toMatchObject(c.validity);
    }
    if (c.reason) expect(outcome.reason).toMatch(c.reason);
    if (c.noFacts) expect([...diff.attributes, ...diff.relations]).toEqual([]);
    for (const verb of c.absentVerbs ?? []) expect(diff.relations.map((r) => r.verb)).not.toContain(verb);
  });
}
