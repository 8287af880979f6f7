// Direct writes (POST /facts) through the same validation, commit and truth
// maintenance as extracted facts, on real Postgres.
import { directStages } from "@recall/pipeline";
import { writeFacts } from "./fact-write";
import { committedRefs } from "./commit-records";
import { readEntityHistory } from "../read/history-reader";
import { readProfile } from "../read/profile-reader";
import { readProvenance } from "../read/provenance-reader";
import { addDocument, attribute, ingest, eachTestInNewContext, type MemoryFixture } from "../testing/memory-fixture";
import { scopeOf } from "../core/scope-sets";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const TRACE = "0123456789abcdef0123456789abcdef";
const ALICE = ["user=alice", "org=acme"];

const seedDiff = {
  entities: [
    { name: "Alice Chen", type: "Person", memory_category: "identity" },
    { name: "Acme", type: "organization", memory_category: "knowledge" },
  ],
  attributes: [{ entity: "Alice Chen", key: "role", value: "CTO", memory_category: "identity" }],
  relations: [
    {
      subject: "Alice Chen",
      verb: "works_at",
      object: "Acme",
      memory_category: "identity",
      evidence: { quote: "Alice told us she works at Acme" },
    },
  ],
  instructions: [{ label: "Bullet-point responses", description: "Always respond using bullet points" }],
  uncertainties: [{ about: "job title", reason: "joked about being CEO", entity: "Alice Chen", key: "title" }],
};

async function write(diff: unknown, scope: string[] = ALICE) {
  return writeFacts(f.db, directStages(f.db), { contextId: f.contextId, scope, diff, traceId: TRACE });
}

test("a direct write is validated, committed and truth-maintained, with work items and evidence like any source", async () => {
  const result = await write(seedDiff);
  if (!result.ok || result.outcome !== "applied") throw new Error(JSON.stringify(result));

  const factWrite = await f.db.factWrite.findUniqueOrThrow({ where: { id: result.factWriteId } });
  expect(factWrite).toMatchObject({ traceId: TRACE, payload: seedDiff });
  expect(await scopeOf(f.db, factWrite.scopeSetId)).toEqual(["org=acme", "user=alice"]);
  expect(factWrite.text.split("\n")).toEqual([
    "Alice Chen.role = CTO",
    "Alice told us she works at Acme",
    "Always respond using bullet points",
  ]);
  const assertions = await f.db.assertion.findMany({ where: { factWriteId: factWrite.id }, orderBy: { startByte: "asc" } });
  expect(assertions.map((a) => [a.quote, a.stage, a.predicate])).toEqual([
    ["Alice Chen.role = CTO", "direct", "role"],
    ["Alice told us she works at Acme", "direct", "works_at"],
  ]);
  for (const a of assertions) expect(Buffer.from(factWrite.text).subarray(a.startByte, a.endByte).toString()).toBe(a.quote);
  const items = await f.db.workItem.findMany({
    where: { subjectType: "fact_write", subjectId: factWrite.id },
    include: { attemptRecords: true },
  });
  expect(items.map((i) => [i.queue, i.status, i.attemptRecords.map((a) => a.status)]).sort()).toEqual([
    ["commit_artifacts", "succeeded", ["succeeded"]],
    ["truth_maintenance", "succeeded", ["succeeded"]],
    ["validate_artifacts", "succeeded", ["succeeded"]],
  ]);
  expect(result.workItemId).toBe(items.find((i) => i.queue === "commit_artifacts")!.id);
  expect(await committedRefs(f.db, result.workItemId)).toMatchObject({ subjectType: "fact_write", subjectId: result.factWriteId });
  expect(result.committed).toMatchObject({
    attributeIds: [expect.any(String)],
    relationIds: [expect.any(String)],
    instructionIds: [expect.any(String)],
  });
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { factWriteId: factWrite.id } });
  expect(uncertainty).toMatchObject({ about: "job title", key: "title" });
  expect(await scopeOf(f.db, uncertainty.scopeSetId)).toEqual(["org=acme", "user=alice"]);
});

test("an invalid memory_category answers ok:false naming the field, and stores nothing", async () => {
  const result = await write({ attributes: [{ entity: "Alice Chen", key: "role", value: "CTO", memory_category: "episodic" }] });

  expect(result).toEqual({ ok: false, errors: [expect.objectContaining({ field: "attributes.0.memory_category" })] });
  expect(await f.db.factWrite.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(await f.db.workItem.count({ where: { contextId: f.contextId } })).toBe(0);
});

test.each(["!!!", "???", "\u200b"])(
  "a name with no letter or digit (%j) is refused naming each field, and stores nothing",
  async (name) => {
    const result = await write({
      entities: [{ name, type: "person", memory_category: "identity" }],
      attributes: [{ entity: name, key: "role", value: "CTO", memory_category: "identity" }],
      relations: [{ subject: "Alice", verb: "knows", object: name, memory_category: "identity" }],
      uncertainties: [{ about: "job title", reason: "unclear", entity: name }],
    });

    if (result.ok) throw new Error("expected errors");
    expect(result.errors.map((e) => e.field).sort()).toEqual(
      ["attributes.0.entity", "entities.0.name", "relations.0.object", "uncertainties.0.entity"].sort(),
    );
    expect(result.errors[0]!.message).toMatch(/must contain a letter or digit/);
    expect(await f.db.factWrite.count({ where: { contextId: f.contextId } })).toBe(0);
  },
);

test("every problem is reported with its field", async () => {
  const result = await write(
    {
      entities: [{ name: "  ", type: "person", memory_category: "identity" }],
      attributes: [{ entity: "Alice Chen", key: "role", memory_category: "identity" }, "CTO"],
      relations: [{ subject: "Alice", verb: "knows", object: "Bob", memory_category: "identity", evidence: { quote: "" } }],
      instructions: [{ label: "x", description: "y", memory_category: "nonsense" }],
      revocations: [],
    },
    ["org=acme", "no-equals-sign"],
  );

  if (result.ok) throw new Error("expected errors");
  expect(result.errors.map((e) => e.field).sort()).toEqual(
    [
      "attributes.0.value",
      "attributes.1",
      "entities.0.name",
      "instructions.0.memory_category",
      "relations.0.evidence.quote",
      "revocations",
      "scope.1",
    ].sort(),
  );
});

test("a later direct write supersedes an earlier one: the history has two values, one current", async () => {
  const first = await write(seedDiff);
  const second = await write({ attributes: [{ entity: "Alice Chen", key: "role", value: "CEO", memory_category: "identity" }] });
  if (!first.ok || !second.ok) throw new Error(JSON.stringify([first, second]));

  // As a client reads it: the entity from GET /profile, its history, each value's provenance.
  const reader = { contextId: f.contextId, scope: ALICE };
  const alice = (await readProfile(f.db, { ...reader, limit: 10 })).entities.find((e) => e.name === "Alice Chen");
  const history = await readEntityHistory(f.db, { ...reader, entityId: alice!.id, limit: 10 });
  const roles = history!.values.filter((v) => v.kind === "attribute" && v.key === "role");
  const sources = await Promise.all(roles.map(async (v) => (await readProvenance(f.db, reader, v.id))?.source));
  expect(roles.map((v, i) => [v.kind === "attribute" && v.value, v.current, sources[i]])).toEqual([
    ["CTO", false, expect.objectContaining({ type: "fact_write", id: first.factWriteId })],
    ["CEO", true, expect.objectContaining({ type: "fact_write", id: second.factWriteId })],
  ]);
});

test("a direct write outranks an earlier extracted value; a later undated document contradicting it is a conflict", async () => {
  const text = "Alice Chen is the CTO of Acme.";
  await ingest(f, await addDocument(f, { text, at: new Date("2025-01-01T00:00:00Z"), scope: [] }), {
    attributes: [attribute("Alice Chen", "role", "CTO", text.slice(0, -1))],
  });
  const direct = await write(
    { attributes: [{ entity: "Alice Chen", entity_type: "person", key: "role", value: "CEO", memory_category: "identity" }] },
    [],
  );
  if (!direct.ok || direct.outcome !== "applied") throw new Error(JSON.stringify(direct));
  expect(direct.truthMaintenance.superseded).toHaveLength(1);

  const later = "Alice Chen is the COO of Acme.";
  const report = await ingest(f, await addDocument(f, { text: later, at: new Date() }), {
    attributes: [attribute("Alice Chen", "role", "COO", later.slice(0, -1))],
  });
  expect(report.conflictUncertaintyIds).toHaveLength(1);
});
