// Facts on both time axes as the API serves them, starting from the seed example: Alice
// Chen, CTO at Acme, then promoted to CEO. History is GET /entities/{id}/history
// (readEntityHistory); as-of views are POST /state with as_of (valid time) and
// recorded_as_of (system time), readState; evidence is GET /facts/{id}/provenance.
import { waitFor } from "@recall/test-support";
import { readInstructionHistory } from "./directive-reader";
import { readEntityHistory } from "./history-reader";
import { readProfile } from "./profile-reader";
import { readProvenance } from "./provenance-reader";
import type { FactView } from "./read-types";
import { readState } from "./state-reader";
import { retractSource } from "../retraction/retraction";
import {
  addDocument,
  addTurn,
  attribute,
  ingest,
  instruction,
  relation,
  eachTestInNewContext,
  type MemoryFixture,
} from "../testing/memory-fixture";

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

/** The entity as GET /profile lists it to the reader, where a client finds its id. */
async function entityNamed(name: string, scope: string[]) {
  const profile = await readProfile(f.db, { contextId: f.contextId, scope, limit: 100 });
  return profile.entities.find((e) => e.name === name);
}

const keyOf = (fact: FactView) => (fact.kind === "attribute" ? fact.key : fact.predicate);
const valueOf = (fact: FactView) => (fact.kind === "attribute" ? fact.value : fact.object.name);

async function history(entityId: string, key: string, scope = ALICE) {
  const found = await readEntityHistory(f.db, { contextId: f.contextId, entityId, scope, limit: 100 });
  return (found?.values ?? []).filter((v) => keyOf(v) === key);
}

/** The entity's facts in POST /state at these instants, by key: state lists the whole context in recording order. */
async function stateOf(entityId: string, at: { asOf?: Date; recordedAsOf?: Date } = {}, scope = ALICE) {
  const state = await readState(f.db, { contextId: f.contextId, scope, ...at, includeResolved: false, limit: 100 });
  const facts = state.facts.filter((fact) => (fact.kind === "attribute" ? fact.entity.id : fact.subject.id) === entityId);
  return facts.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
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
  const alice = await entityNamed("Alice Chen", ALICE);
  return { alice: alice!, t1, t2, beforePromotion };
}

test("the seed example reads back as a history of two values, one current", async () => {
  const { alice, t2 } = await seedAlice();
  const roles = await history(alice.id, "role");

  expect(roles.map((h) => [valueOf(h), h.current])).toEqual([
    ["CTO", false],
    ["CEO", true],
  ]);
  const [cto, ceo] = roles;
  expect(cto).toMatchObject({ valid_from: JAN, valid_to: new Date(PROMOTED), superseded_by: ceo!.id, retracted_at: null });
  expect(ceo).toMatchObject({ valid_from: new Date(PROMOTED), valid_to: null, superseded_by: null });
  const evidence = await readProvenance(f.db, { contextId: f.contextId, scope: ALICE }, ceo!.id);
  expect(evidence).toMatchObject({
    assertion: { id: ceo!.assertion_id, quote: "promoted to CEO on June 1st", turnId: t2.id, eventTime: new Date(PROMOTED) },
    source: { type: "turn", id: t2.id },
    span: { quote: "promoted to CEO on June 1st", text: "promoted to CEO on June 1st" },
  });
  const span = evidence!.span!;
  expect(Buffer.from(t2.text).subarray(span.start_byte, span.end_byte).toString()).toBe(span.quote);
});

test("as of a valid time: her role in March was CTO, today it is CEO; the employer holds throughout", async () => {
  const { alice } = await seedAlice();
  const march = await stateOf(alice.id, { asOf: new Date("2025-03-01T00:00:00Z") });
  const today = await stateOf(alice.id);

  expect(march.map((h) => [keyOf(h), valueOf(h)])).toEqual([
    ["role", "CTO"],
    ["works_at", "Acme"],
  ]);
  expect(today.map((h) => [keyOf(h), valueOf(h)])).toEqual([
    ["role", "CEO"],
    ["works_at", "Acme"],
  ]);
});

test("as of a system time: before the promotion was recorded, CTO was open-ended and CEO unknown", async () => {
  const { alice, beforePromotion } = await seedAlice();
  const roles = (facts: FactView[]) => facts.filter((h) => keyOf(h) === "role");
  const then = roles(await stateOf(alice.id, { recordedAsOf: beforePromotion }));
  const july = new Date("2025-07-01T00:00:00Z");
  const believedThen = roles(await stateOf(alice.id, { recordedAsOf: beforePromotion, asOf: july }));
  const knownNow = roles(await stateOf(alice.id, { asOf: july }));

  // Current then: the supersession recorded later had not closed CTO yet.
  expect(then.map((h) => [valueOf(h), h.valid_to, h.superseded_by])).toEqual([["CTO", null, null]]);
  expect(believedThen.map(valueOf)).toEqual(["CTO"]);
  expect(knownNow.map(valueOf)).toEqual(["CEO"]);
});

test("after deleting the promotion turn, the history shows it retracted and CTO current again, while the past still reads as it was", async () => {
  const { alice, t2 } = await seedAlice();
  const whilePromoted = await systemNow();
  await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: t2.id, reason: "user asked to forget it" });

  const now = await history(alice.id, "role");
  expect(now.map((h) => [valueOf(h), h.current, h.retracted_at !== null, h.valid_to])).toEqual([
    ["CTO", true, false, null],
    ["CEO", false, true, null],
  ]);
  const past = await stateOf(alice.id, { recordedAsOf: whilePromoted });
  expect(past.filter((h) => keyOf(h) === "role").map(valueOf)).toEqual(["CEO"]);
  const visibleNow = await stateOf(alice.id);
  expect(visibleNow.filter((h) => keyOf(h) === "role").map(valueOf)).toEqual(["CTO"]);
});

test("contested values are both current and name their open uncertainty", async () => {
  for (const [role, at] of [
    ["CTO", JAN],
    ["CEO", JUN],
  ] as const) {
    const text = `Alice Chen is the ${role} of Acme.`;
    await ingest(f, await addDocument(f, { text, at }), { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  }
  const alice = await entityNamed("Alice Chen", []);
  const state = await readState(f.db, { contextId: f.contextId, scope: [], includeResolved: false, limit: 100 });
  const current = state.facts.filter((h) => keyOf(h) === "role");
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });

  expect(current.map(valueOf)).toEqual(["CTO", "CEO"]);
  expect(state.unknowns).toEqual([expect.objectContaining({ id: uncertainty.id, entity_id: alice!.id, key: "role", resolved: false })]);
  // Which values it is about is stored, not served: state names the entity and key.
  expect([...uncertainty.factIds].sort()).toEqual(current.map((h) => h.id).sort());
});

test("a reader sees only facts written in a subset of its scope", async () => {
  const { alice } = await seedAlice();
  const bob = ["org=acme", "user=bob"];

  expect(await stateOf(alice.id, {}, bob)).toEqual([]);
  expect(await readEntityHistory(f.db, { contextId: f.contextId, entityId: alice.id, scope: bob, limit: 100 })).toBeUndefined();
  expect(await entityNamed("Alice Chen", ["org=acme"])).toBeUndefined();
});

test("instructions as of a system time: active before the revocation, inactive (and kept) after", async () => {
  const asked = await addTurn(f, { content: "Always respond in bullet points.", at: JAN, scope: ALICE });
  await ingest(f, asked, { instructions: [instruction("Bullets", "Always respond in bullet points")] });
  const beforeRevocation = await systemNow();
  const stop = await addTurn(f, { content: "Stop using bullet points.", at: JUN, scope: ALICE });
  await ingest(f, stop, { revocations: [{ matches: "bullet points", confidence: 0.9 }] });

  const reader = { contextId: f.contextId, scope: ALICE };
  const then = await readState(f.db, { ...reader, recordedAsOf: beforeRevocation, includeResolved: false, limit: 100 });
  const now = await readInstructionHistory(f.db, reader, { includeRevoked: false, limit: 100 });
  const audit = await readInstructionHistory(f.db, reader, { includeRevoked: true, limit: 100 });

  expect(then.instructions?.map((i) => i.description)).toEqual(["Always respond in bullet points"]);
  expect(now.items).toEqual([]);
  expect(audit.items).toEqual([expect.objectContaining({ active: false, revoked_by_turn_id: stop.id })]);
});
