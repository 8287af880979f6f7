// An export taken before an erasure, cut down by hand, never brings the erased person back (issue 42). Deleting every
// line the importer refuses for naming the erased input (session, turn, candidates, mentions, assertions, the
// instruction) left entity, attribute and relation lines, which name no input, and they imported: the profile read
// the erased name and facts again. The erasure now tombstones every row it deletes as read from the inputs, so each
// such line is refused too; a property over any subset of the export's lines checks that none of it comes back.
import fc from "fast-check";
import { pipelineRecords } from "@recall/pipeline";
import { eraseInputs } from "../erasure/erasure";
import { readProfile } from "../read/profile-reader";
import {
  addTurn,
  attribute,
  eachTestInNewContext,
  exportLines,
  ingest,
  instruction,
  relation,
  tombstonedRows,
  type MemoryFixture,
} from "../testing/memory-fixture";
import { importContext, ImportLineError } from "./import";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));
type Line = Record<string, unknown>;
/** What only the erased turn stated: its speaker's name, role, employer and instruction. */
const ERASED_WORDS = ["Quorvane", "CTO", "Acme", "haiku"];

/**
 * The erased turn introduces Quorvane; a kept turn of hers ("I live in Berlin") keeps the entity (renamed by the
 * erasure), another person's turn is untouched. Answers the export taken before the erasure and the erased turn.
 */
async function exportThenErase() {
  const text = "I'm Quorvane, CTO at Acme. Always answer in haiku.";
  const erased = await addTurn(f, { content: text, at });
  await ingest(f, erased, {
    attributes: [attribute("Quorvane", "role", "CTO", "I'm Quorvane, CTO")],
    relations: [relation("Quorvane", "works_at", "Acme", "organization", "CTO at Acme")],
    instructions: [instruction("Haiku", "Always answer in haiku")],
  });
  const later = new Date(at.getTime() + 60_000);
  const kept = await addTurn(f, { content: "I live in Berlin.", at: later });
  await ingest(f, kept, { attributes: [attribute("Quorvane", "lives_in", "Berlin", "I live in Berlin")] });
  const other = await addTurn(f, { content: "Ilse likes tea.", at: later, sessionId: kept.sessionId });
  await ingest(f, other, { attributes: [attribute("Ilse", "likes", "tea", "Ilse likes tea")] });
  const exported = await exportLines(f);
  await eraseInputs(f.db, { contextId: f.contextId, turnIds: [erased.id] }, { records: pipelineRecords });
  return { exported, erased };
}

async function* feed(lines: readonly Line[]) {
  for (const line of lines) yield JSON.stringify(line);
}

/** Imports the lines into the context; a refused line is an answer like any other, anything else fails the test. */
async function importLines(lines: readonly Line[]): Promise<ImportLineError | undefined> {
  try {
    await importContext(f.db, f.contextId, feed(lines), pipelineRecords);
    return undefined;
  } catch (err) {
    if (err instanceof ImportLineError) return err;
    throw err;
  }
}

/** What the context shows of the erased turn: in its export (every row), its profile, and tombstoned rows. */
async function traces(): Promise<{ words: string[]; tombstoned: string[] }> {
  const shown = JSON.stringify([
    (await exportLines(f)).slice(1, -1),
    await readProfile(f.db, { contextId: f.contextId, scope: [], limit: 100 }),
  ]);
  return { words: ERASED_WORDS.filter((w) => shown.includes(w)), tombstoned: await tombstonedRows(f.db, f.contextId) };
}

const namesErasedInput = (line: Line, ids: string[]) => ids.some((id) => JSON.stringify(line).includes(id));

test("the export with every line naming the erased input cut out: its fact lines are refused, nothing comes back", async () => {
  const { exported, erased } = await exportThenErase();
  expect(await traces()).toEqual({ words: [], tombstoned: [] });
  const trimmed = exported.filter((l) => !namesErasedInput(l, [erased.id, erased.sessionId]));
  const entity = trimmed.findIndex((l) => l.kind === "entity" && l.name === "Acme");

  const refused = await importLines(trimmed);

  expect(refused).toMatchObject({
    line: entity + 1,
    field: "id",
    message: expect.stringMatching(/names a row read from an input erased from this context \(erasure /),
  });
  expect(await traces()).toEqual({ words: [], tombstoned: [] });
});

test("property: whatever subset of the export's lines is imported, no erased name or fact comes back", async () => {
  const { exported, erased } = await exportThenErase();
  const [header, ...rest] = exported;
  const body = rest.slice(0, -1);
  const end = rest.at(-1)!;
  const edits = fc.record({
    keep: fc.array(fc.boolean(), { minLength: body.length, maxLength: body.length }),
    // As in the report: every line the importer names for the erased input deleted as well.
    cutErasedInput: fc.boolean(),
    ended: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(edits, async ({ keep, cutErasedInput, ended }) => {
      const kept = body.filter((l, i) => keep[i] && !(cutErasedInput && namesErasedInput(l, [erased.id, erased.sessionId])));
      await importLines([header!, ...kept, ...(ended ? [end] : [])]);
      expect(await traces()).toEqual({ words: [], tombstoned: [] });
    }),
    { numRuns: 40 },
  );
}, 120_000);
