// Reading a fact's history and the facts as of a valid time and/or a system time,
// starting from the seed example: Alice Chen, CTO at Acme, then promoted to CEO.
import { waitFor } from "@recall/test-support";
import { readFactHistory, readFactsAsOf } from "./fact-history";
import { findEntitiesByName, readInstructions } from "./memory-lookup";
import { retractSource } from "../retraction/retraction";
import { addDocument, addTurn, attribute, ingest, relation, eachTestInNewContext, type MemoryFixture } from "./memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ALICE = ["org=acme", "user=alice"];
const JAN = new Date("2025-01-10T09:00:00Z");
const JUN = new Date("2025-06-02T09:00:00Z");
const PROMOTED = "2025-06-01T00:00:00.000Z";

/** A moment strictly after everything written so far, so system-time reads can tell before from after. */
async function systemNow(): Promise<Date> {
  const at = new Date();
  await waitFor(async () => Date.now() > at.getTime(), { what: "the clock to move on" });
  return at;
}

async function seedAlice() {
  const intro = "I'm Alice Chen, CTO at Acme.";
  const t1 = await addTurn(f, { content: intro, at: JAN, scope: ALICE });
  await ingest(f, t1, {
    entities: [{ name: "Alice Chen", type: "person", memory_category: "identity", aliases: [], confidence: 0.9 }],
    attributes: [attribute("Alice Chen", "role", "CTO", intro.slice(0, -1))],
    relations: [relation("Alice Chen", "works_at", "Acme", "organization", intro.slice(0, -1))],
  });
  const beforePromotion = await systemNow();
  const news = "I was promoted to CEO on June 1st.";
  const t2 = await addTurn(f, { content: news, at: JUN, scope: ALICE });
  await ingest(f, t2, { attributes: [attribute("Alice Chen", "role", "CEO", "promoted to CEO on June 1st", { valid_from: PROMOTED })] });
  const [alice] = await findEntitiesByName(f.db, { contextId: f.contextId, name: "alice chen", scope: ALICE });
  return { alice: alice!, t1, t2, beforePromotion };
}

test("the seed example reads back as a history of two values, one current", async () => {
  const { alice, t2 } = await seedAlice();
  const history = await readFactHistory(f.db, { contextId: f.contextId, entityId: alice.id, key: "role", scope: ALICE });

  expect(history.map((h) => [h.value, h.current])).toEqual([
    ["CTO", false],
    ["CEO", true],
  ]);
  const [cto, ceo] = history;
  expect(cto).toMatchObject({ valid_from: JAN, valid_to: new Date(PROMOTED), superseded_by: ceo!.id, retracted_at: null });
  expect(ceo).toMatchObject({ valid_from: new Date(PROMOTED), valid_to: null, superseded_by: null });
  expect(ceo!.evidence).toMatchObject({ quote: "promoted to CEO on June 1st", turn_id: t2.id, event_time: new Date(PROMOTED) });
  expect(Buffer.from(t2.text).subarray(ceo!.evidence!.start_byte, ceo!.evidence!.end_byte).toString()).toBe(ceo!.evidence!.quote);
});

test("as of a valid time: her role in March was CTO, today it is CEO; the employer holds throughout", async () => {
  const { alice } = await seedAlice();
  const march = await readFactsAsOf(f.db, { contextId: f.contextId, entityId: alice.id, validAt: new Date("2025-03-01T00:00:00Z") });
  const today = await readFactsAsOf(f.db, { contextId: f.contextId, entityId: alice.id });

  expect(march.map((h) => [h.key, h.value])).toEqual([
    ["role", "CTO"],
    ["works_at", "Acme"],
  ]);
  expect(today.map((h) => [h.key, h.value])).toEqual([
    ["role", "CEO"],
    ["works_at", "Acme"],
  ]);
});

test("as of a system time: before the promotion was recorded, CTO was open-ended and CEO unknown", async () => {
  const { alice, beforePromotion } = await seedAlice();
  const then = await readFactHistory(f.db, { contextId: f.contextId, entityId: alice.id, key: "role", knownAt: beforePromotion });
  const believedThen = await readFactsAsOf(f.db, {
    contextId: f.contextId,
    entityId: alice.id,
    key: "role",
    knownAt: beforePromotion,
    validAt: new Date("2025-07-01T00:00:00Z"),
  });

  expect(then.map((h) => [h.value, h.valid_to, h.superseded_by, h.current])).toEqual([["CTO", null, null, true]]);
  expect(believedThen.map((h) => h.value)).toEqual(["CTO"]);
});

test("after deleting the promotion turn, the history shows it retracted and CTO current again, while the past still reads as it was", async () => {
  const { alice, t2 } = await seedAlice();
  const whilePromoted = await systemNow();
  await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: t2.id, reason: "user asked to forget it" });

  const now = await readFactHistory(f.db, { contextId: f.contextId, entityId: alice.id, key: "role", includeRetracted: true });
  expect(now.map((h) => [h.value, h.current, h.retracted_at !== null, h.valid_to])).toEqual([
    ["CTO", true, false, null],
    ["CEO", false, true, null],
  ]);
  const past = await readFactsAsOf(f.db, { contextId: f.contextId, entityId: alice.id, key: "role", knownAt: whilePromoted });
  expect(past.map((h) => h.value)).toEqual(["CEO"]);
  const visibleNow = await readFactHistory(f.db, { contextId: f.contextId, entityId: alice.id, key: "role" });
  expect(visibleNow.map((h) => h.value)).toEqual(["CTO"]);
});

test("contested values are both current and name their open uncertainty", async () => {
  for (const [role, at] of [
    ["CTO", JAN],
    ["CEO", JUN],
  ] as const) {
    const text = `Alice Chen is the ${role} of Acme.`;
    await ingest(f, await addDocument(f, { text, at }), { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  }
  const [alice] = await findEntitiesByName(f.db, { contextId: f.contextId, name: "Alice Chen" });
  const current = await readFactsAsOf(f.db, { contextId: f.contextId, entityId: alice!.id, key: "role" });
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });

  expect(current.map((h) => [h.value, h.open_uncertainty_ids])).toEqual([
    ["CTO", [uncertainty.id]],
    ["CEO", [uncertainty.id]],
  ]);
});

test("a reader sees only facts written in a subset of its scope", async () => {
  const { alice } = await seedAlice();
  const bob = await readFactsAsOf(f.db, { contextId: f.contextId, entityId: alice.id, scope: ["org=acme", "user=bob"] });
  const org = await findEntitiesByName(f.db, { contextId: f.contextId, name: "Alice Chen", scope: ["org=acme"] });

  expect(bob).toEqual([]);
  expect(org).toEqual([]);
});

test("instructions as of a system time: active before the revocation, inactive (and kept) after", async () => {
  const asked = await addTurn(f, { content: "Always respond in bullet points.", at: JAN, scope: ALICE });
  await ingest(f, asked, {
    instructions: [
      {
        label: "Bullets",
        description: "Always respond in bullet points",
        evidence: { quote: "Always respond in bullet points" },
        confidence: 0.9,
      },
    ],
  });
  const beforeRevocation = await systemNow();
  const stop = await addTurn(f, { content: "Stop using bullet points.", at: JUN, scope: ALICE });
  await ingest(f, stop, { revocations: [{ matches: "bullet points", confidence: 0.9 }] });

  const then = await readInstructions(f.db, { contextId: f.contextId, scope: ALICE, knownAt: beforeRevocation });
  const now = await readInstructions(f.db, { contextId: f.contextId, scope: ALICE });
  const audit = await readInstructions(f.db, { contextId: f.contextId, scope: ALICE, includeInactive: true });

  expect(then.map((i) => i.description)).toEqual(["Always respond in bullet points"]);
  expect(now).toEqual([]);
  expect(audit).toEqual([expect.objectContaining({ active: false, revoked_by_turn_id: stop.id })]);
});
