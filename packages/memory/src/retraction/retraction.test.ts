// Delete by source: everything derived from one turn or document is retracted (not
// deleted), what it had changed is undone where right, and an audit row says what
// and why.
import { retractSource } from "./retraction";
import {
  addDocument,
  addTurn,
  attribute,
  commitSubject,
  ingest,
  instruction,
  relation,
  stageCandidates,
  eachTestInNewContext,
  validateStaged,
  type MemoryFixture,
} from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ALICE = ["org=acme", "user=alice"];
const day = (d: number) => new Date(Date.UTC(2025, 0, d, 9));

async function sayRole(role: string, at: Date) {
  const text = `I'm ${role} now.`;
  const turn = await addTurn(f, { content: text, at, scope: ALICE });
  await ingest(f, turn, { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  return turn;
}

async function roles() {
  return f.db.attribute.findMany({ where: { contextId: f.contextId, key: "role" }, orderBy: { validFrom: "asc" } });
}

test("deleting a turn retracts its assertions, facts and the entities only it mentioned, with an audit row", async () => {
  const text = "I'm Alice Chen. I live in Berlin.";
  const turn = await addTurn(f, { content: text, at: day(1), scope: ALICE });
  await ingest(f, turn, { relations: [relation("Alice Chen", "lives_in", "Berlin", "location", "I live in Berlin")] });
  const other = await sayRole("CTO", day(2));

  const report = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: turn.id, reason: "user request" });

  const berlin = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, identityKey: "berlin" } });
  const alice = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, identityKey: "alice chen" } });
  expect(berlin.retractedAt).toBeInstanceOf(Date);
  expect(alice.retractedAt).toBeNull(); // still mentioned by the other turn
  const relationRow = await f.db.relation.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(relationRow.retractedAt).toBeInstanceOf(Date);
  expect(await f.db.assertion.count({ where: { turnId: turn.id, retractedAt: null } })).toBe(0);
  expect(await f.db.assertion.count({ where: { turnId: other.id, retractedAt: null } })).toBe(1);
  const audit = await f.db.retraction.findUniqueOrThrow({ where: { id: report.retractionId! } });
  expect(audit).toMatchObject({ sourceType: "turn", sourceId: turn.id, reason: "user request" });
  expect(audit.summary).toMatchObject({ relationIds: [relationRow.id], entityIds: [berlin.id] });
});

test("deleting the newest value reopens the one it had superseded", async () => {
  await sayRole("CTO", day(1));
  const ceoTurn = await sayRole("CEO", day(5));

  const report = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: ceoTurn.id, reason: "wrong" });

  const [cto, ceo] = await roles();
  expect(cto).toMatchObject({ value: "CTO", validTo: null, supersededById: null, retractedAt: null });
  expect(ceo!.retractedAt).toBeInstanceOf(Date);
  expect(report.reopenedFactIds).toEqual([cto!.id]);
  const step = await f.db.supersession.findFirstOrThrow({ where: { olderId: cto!.id } });
  expect(step.undoneAt).toBeInstanceOf(Date);
});

test("deleting the middle of a chain A → B → C closes A at C", async () => {
  await sayRole("CTO", day(1));
  const vp = await sayRole("VP", day(5));
  await sayRole("CEO", day(9));

  await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: vp.id, reason: "never said" });

  const [cto, , ceo] = await roles();
  expect(cto).toMatchObject({ value: "CTO", validTo: day(9), supersededById: ceo!.id });
  expect(ceo).toMatchObject({ validTo: null, supersededById: null });
});

test("deleting the clarifying turn reopens the uncertainty and puts the conflict back", async () => {
  for (const [role, at] of [
    ["CTO", day(1)],
    ["CEO", day(2)],
  ] as const) {
    const text = `Alice Chen is the ${role} of Acme.`;
    await ingest(f, await addDocument(f, { text, at }), { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  }
  const clarifying = await addTurn(f, { content: "I'm the CEO.", at: day(3) });
  await ingest(f, clarifying, { attributes: [attribute("Alice Chen", "role", "CEO", "I'm the CEO")] });
  expect((await roles()).find((r) => r.value === "CTO")!.supersededById).not.toBeNull();

  const report = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: clarifying.id, reason: "test" });

  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(report.reopenedUncertaintyIds).toEqual([uncertainty.id]);
  expect(uncertainty).toMatchObject({ resolved: false, resolvedBy: null, retractedAt: null });
  const live = (await roles()).filter((r) => !r.retractedAt);
  expect(live.map((r) => [r.value, r.supersededById])).toEqual([
    ["CTO", null],
    ["CEO", null],
  ]);
});

test("deleting one side of a two-sided conflict retracts the conflict", async () => {
  const docs = [];
  for (const [role, at] of [
    ["CTO", day(1)],
    ["CEO", day(2)],
  ] as const) {
    const text = `Alice Chen is the ${role} of Acme.`;
    const doc = await addDocument(f, { text, at });
    await ingest(f, doc, { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
    docs.push(doc);
  }
  await retractSource(f.db, { contextId: f.contextId, sourceType: "document", sourceId: docs[1]!.id, reason: "outdated" });

  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(uncertainty.retractedAt).toBeInstanceOf(Date);
});

test("instructions: the turn's own are retracted, the ones it revoked are active again", async () => {
  const asked = await addTurn(f, { content: "Always respond in bullet points.", at: day(1), scope: ALICE });
  await ingest(f, asked, { instructions: [instruction("Bullets", "Always respond in bullet points")] });
  const stop = await addTurn(f, { content: "Stop using bullet points.", at: day(2), scope: ALICE });
  await ingest(f, stop, { revocations: [{ matches: "bullet points", confidence: 0.9 }] });

  const undo = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: stop.id, reason: "misheard" });
  const revived = await f.db.instruction.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(undo.reactivatedInstructionIds).toEqual([revived.id]);
  expect(revived).toMatchObject({ active: true, revokedAt: null, revokedByTurnId: null });

  await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: asked.id, reason: "forget it" });
  const gone = await f.db.instruction.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(gone.active).toBe(false);
  expect(gone.retractedAt).toBeInstanceOf(Date);
});

test("retracting twice changes nothing the second time and writes one audit row", async () => {
  const turn = await sayRole("CTO", day(1));
  const first = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: turn.id, reason: "one" });
  const second = await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: turn.id, reason: "two" });

  expect(first.retractionId).not.toBeNull();
  expect(second).toMatchObject({ retractionId: null, assertionIds: [], attributeIds: [], entityIds: [] });
  expect(await f.db.retraction.count({ where: { contextId: f.contextId } })).toBe(1);
});

test("a source deleted before its commit ran commits nothing", async () => {
  const turn = await addTurn(f, { content: "I'm CTO now.", at: day(1), scope: ALICE });
  await stageCandidates(f, turn, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm CTO now")] });
  await validateStaged(f, turn);
  await f.db.retraction.create({
    data: { contextId: f.contextId, sourceType: "turn", sourceId: turn.id, reason: "deleted early", summary: {} },
  });

  const summary = await commitSubject(f, turn);

  expect(summary).toMatchObject({ retracted: true, attributeIds: [], entityIds: [] });
  expect(await f.db.attribute.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(await f.db.commitRecord.findMany({ where: { contextId: f.contextId }, select: { retracted: true } })).toEqual([
    { retracted: true },
  ]);
});
