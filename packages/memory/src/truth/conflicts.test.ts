// Cross-source contradictions become uncertainties (both values current); a
// clarifying statement resolves them; revocations respect the scope rule.
import { addDocument, addTurn, attribute, ingest, eachTestInNewContext, type MemoryFixture } from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const JAN = new Date("2025-01-10T09:00:00Z");
const FEB = new Date("2025-02-10T09:00:00Z");
const MAR = new Date("2025-03-10T09:00:00Z");
const APR = new Date("2025-04-10T09:00:00Z");

async function roles() {
  return f.db.attribute.findMany({ where: { contextId: f.contextId, key: "role" }, orderBy: { recordedAt: "asc" } });
}

async function documentSaying(role: string, at: Date, sourceId?: string) {
  const text = `Alice Chen is the ${role} of Acme.`;
  const doc = await addDocument(f, { text, at, sourceId });
  const report = await ingest(f, doc, { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  return { doc, report };
}

test("two documents that disagree, neither dated: an uncertainty, both values stay current", async () => {
  await documentSaying("CTO", JAN);
  const { report } = await documentSaying("CEO", FEB);

  const [cto, ceo] = await roles();
  expect([cto, ceo].map((r) => [r!.value, r!.validTo, r!.supersededById])).toEqual([
    ["CTO", null, null],
    ["CEO", null, null],
  ]);
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(report.conflictUncertaintyIds).toEqual([uncertainty.id]);
  expect(uncertainty).toMatchObject({ about: "role of Alice Chen", key: "role", entityId: cto!.entityId, resolved: false });
  expect(uncertainty.factIds.sort()).toEqual([cto!.id, ceo!.id].sort());
  expect(uncertainty.reason).toMatch(/"CTO" \(document .+\) vs "CEO" \(document .+\)/);
});

test("a third undated document joins the same conflict instead of opening another", async () => {
  await documentSaying("CTO", JAN);
  await documentSaying("CEO", FEB);
  await documentSaying("COO", MAR);

  const open = await f.db.uncertainty.findMany({ where: { contextId: f.contextId, resolved: false } });
  expect(open).toHaveLength(1);
  expect(open[0]!.factIds).toHaveLength(3);
  expect((await roles()).every((r) => r.supersededById === null)).toBe(true);
});

test("a clarifying turn resolves the conflict and supersedes the values it contradicts", async () => {
  await documentSaying("CTO", JAN);
  await documentSaying("CEO", FEB);
  const turn = await addTurn(f, { content: "Actually I'm CEO now.", at: MAR });
  const report = await ingest(f, turn, { attributes: [attribute("Alice Chen", "role", "CEO", "Actually I'm CEO now")] });

  const [cto, docCeo, turnCeo] = await roles();
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(uncertainty).toMatchObject({ resolved: true, resolvedBy: turnCeo!.assertionId });
  expect(uncertainty.resolvedAt).toBeInstanceOf(Date);
  expect(report.resolvedUncertaintyIds).toEqual([uncertainty.id]);
  expect(cto).toMatchObject({ value: "CTO", validTo: MAR, supersededById: turnCeo!.id });
  // Agreeing values are not a contradiction: the document's CEO stays current beside the turn's.
  expect([docCeo!.supersededById, turnCeo!.supersededById]).toEqual([null, null]);
});

test("documents from the same source update each other: no uncertainty", async () => {
  const source = await f.db.source.create({ data: { contextId: f.contextId, type: "wiki", externalId: "people/alice" } });
  await documentSaying("CTO", JAN, source.id);
  const { report } = await documentSaying("CEO", FEB, source.id);

  const [cto, ceo] = await roles();
  expect(cto).toMatchObject({ validTo: FEB, supersededById: ceo!.id });
  expect(report.conflictUncertaintyIds).toEqual([]);
});

test("an event time after the other source was written is a clear winner across sources", async () => {
  await documentSaying("CTO", JAN);
  const text = "Since March 2025 Alice Chen is the CEO of Acme.";
  const doc = await addDocument(f, { text, at: APR });
  const since = "2025-03-01T00:00:00.000Z";
  await ingest(f, doc, { attributes: [attribute("Alice Chen", "role", "CEO", text.slice(0, -1), { valid_from: since })] });

  const [cto, ceo] = await roles();
  expect(cto).toMatchObject({ validTo: new Date(since), supersededById: ceo!.id });
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("an extracted uncertainty is not settled by its own turn, but by a later one about the same key", async () => {
  const joke = await addTurn(f, { content: "I'm CEO — well, co-CEO, it's complicated.", at: JAN });
  await ingest(f, joke, {
    attributes: [attribute("Alice Chen", "role", "co-CEO", "well, co-CEO")],
    uncertainties: [{ about: "job title", reason: "joked about being CEO, then corrected", entity: "Alice Chen", key: "role" }],
  });
  const open = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(open.resolved).toBe(false);

  const later = await addTurn(f, { content: "To be clear: I'm co-CEO.", at: FEB });
  const report = await ingest(f, later, { attributes: [attribute("Alice Chen", "role", "co-CEO", "I'm co-CEO")] });

  expect(report.resolvedUncertaintyIds).toEqual([open.id]);
  const resolved = await f.db.uncertainty.findUniqueOrThrow({ where: { id: open.id } });
  const clarifying = (await roles()).at(-1)!;
  expect(resolved).toMatchObject({ resolved: true, resolvedBy: clarifying.assertionId });
});

describe("revocation", () => {
  const ALICE = ["org=acme", "user=alice"];
  const BOB = ["org=acme", "user=bob"];
  const always = { label: "Bullet-point responses", description: "Always respond in bullet points" };
  const stop = { matches: "bullet points", evidence: { quote: "Stop using bullet points" } };

  test("deactivates the instruction the turn can see, keeps the row, records when and which turn", async () => {
    const asked = await addTurn(f, { content: "Always respond in bullet points.", at: JAN, scope: ALICE });
    await ingest(f, asked, { instructions: [{ ...always, evidence: { quote: "Always respond in bullet points" } }] });
    const revoking = await addTurn(f, { content: "Stop using bullet points.", at: FEB, scope: ALICE });
    const report = await ingest(f, revoking, { revocations: [stop] });

    const instruction = await f.db.instruction.findFirstOrThrow({ where: { contextId: f.contextId } });
    expect(report.revokedInstructionIds).toEqual([instruction.id]);
    expect(instruction).toMatchObject({ active: false, revokedByTurnId: revoking.id, turnId: asked.id, description: always.description });
    expect(instruction.revokedAt).toBeInstanceOf(Date);
  });

  test("never revokes an instruction the revoking turn cannot see (another user's)", async () => {
    const asked = await addTurn(f, { content: "Always respond in bullet points.", at: JAN, scope: ALICE });
    await ingest(f, asked, { instructions: [{ ...always, evidence: { quote: "Always respond in bullet points" } }] });
    const bob = await addTurn(f, { content: "Stop using bullet points.", at: FEB, scope: BOB });
    const report = await ingest(f, bob, { revocations: [stop] });

    expect(report.revokedInstructionIds).toEqual([]);
    expect(await f.db.instruction.findFirstOrThrow({ where: { contextId: f.contextId } })).toMatchObject({ active: true, revokedAt: null });
  });

  test("a user may revoke an org-wide instruction, which is visible to them", async () => {
    const org = await addTurn(f, { content: "Always respond in bullet points.", at: JAN, scope: ["org=acme"] });
    await ingest(f, org, { instructions: [{ ...always, evidence: { quote: "Always respond in bullet points" } }] });
    const alice = await addTurn(f, { content: "Stop using bullet points.", at: FEB, scope: ALICE });
    const report = await ingest(f, alice, { revocations: [stop] });

    expect(report.revokedInstructionIds).toHaveLength(1);
  });
});
