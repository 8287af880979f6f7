// /context over an entity known by more facts than it weighs (issue 43: memory at the density a model writes): the
// facts /query matched are weighed first, then the newest (no longer the oldest 400), and where they were read from is
// looked up for those facts only.
import { addTurn, attribute, eachTestInNewContext, ingest, type MemoryFixture } from "../testing/memory-fixture";
import { readContext } from "./context-reader";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const JAN = new Date("2025-01-10T09:00:00Z");
const MAR = new Date("2025-03-05T09:00:00Z");

test("a matching fact said after 450 others of the same person is weighed and packed, with its source", async () => {
  const busy = await addTurn(f, { content: "Alice Chen logged entry 0.", at: JAN });
  await ingest(f, busy, { attributes: [attribute("Alice Chen", "logged", "entry 0", "Alice Chen logged entry 0")] });
  // 450 more of the same shape, copied in SQL: a read test, and 450 commits would only make it slow.
  await f.db.$executeRaw`
    WITH src AS (SELECT * FROM assertions WHERE turn_id = ${busy.id}::uuid),
    a AS (
      INSERT INTO assertions (id, context_id, subject_entity_id, predicate, object_literal, turn_id, start_byte, end_byte, quote,
        confidence, significance, memory_category, stage, model, scope_set_id, trace_id, recorded_at)
      SELECT gen_random_uuid(), context_id, subject_entity_id, predicate, 'entry ' || g, turn_id, start_byte, end_byte, quote,
        confidence, significance, memory_category, stage, model, scope_set_id, trace_id, recorded_at + g * interval '1 ms'
      FROM src, generate_series(1, 450) g
      RETURNING id, object_literal, recorded_at)
    INSERT INTO attributes (id, context_id, entity_id, key, value, memory_category, confidence, assertion_id, scope_set_id, valid_from, recorded_at)
    SELECT gen_random_uuid(), x.context_id, x.entity_id, x.key, a.object_literal, x.memory_category, x.confidence, a.id, x.scope_set_id,
      x.valid_from, a.recorded_at
    FROM a, attributes x WHERE x.assertion_id = (SELECT id FROM src)`;
  expect(await f.db.attribute.count({ where: { contextId: f.contextId } })).toBe(451);
  const late = await addTurn(f, { content: "Alice Chen took up the cello this spring.", at: MAR });
  await ingest(f, late, { attributes: [attribute("Alice Chen", "hobby", "cello", "Alice Chen took up the cello")] });

  const cello = await readContext(f.db, {
    contextId: f.contextId,
    scope: [],
    message: "Which instrument does Alice Chen play, the cello?",
    maxTokens: 1_000,
  });
  expect(cello.sections.facts.map((x) => x.kind === "attribute" && x.value)).toContain("cello");
  expect(cello.sections.facts.find((x) => x.kind === "attribute" && x.value === "cello")!.source.turn_id).toBe(late.id);
});
