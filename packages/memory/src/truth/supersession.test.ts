// Supersession on real Postgres: single-valued facts from one origin form a chain of
// values (valid_to + superseded_by), multi-valued ones accumulate, scopes never close
// each other, and truth maintenance run twice changes nothing the second time.
import { addTurn, attribute, ingest, maintainSubject, relation, eachTestInNewContext, type MemoryFixture } from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ALICE = ["org=acme", "user=alice"];
const JAN = new Date("2025-01-10T09:00:00Z");
const MAR = new Date("2025-03-05T09:00:00Z");

async function rolesOfAlice() {
  const alice = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, identityKey: "alice chen" } });
  return f.db.attribute.findMany({ where: { entityId: alice.id, key: "role" }, orderBy: { validFrom: "asc" } });
}

test("CTO → VP: the same speaker's later statement closes the earlier value at the new one's start", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen, CTO at Acme.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm Alice Chen, CTO at Acme")] });
  // Another session, same speaker (user alice): an update of her own statement.
  const t2 = await addTurn(f, { content: "I'm VP of Engineering now.", at: MAR, scope: ALICE });
  const report = await ingest(f, t2, { attributes: [attribute("Alice Chen", "role", "VP of Engineering", "I'm VP of Engineering now")] });

  const [cto, vp] = await rolesOfAlice();
  expect(cto).toMatchObject({ value: "CTO", validFrom: JAN, validTo: MAR, supersededById: vp!.id });
  expect(vp).toMatchObject({ value: "VP of Engineering", validFrom: MAR, validTo: null, supersededById: null });
  expect(report.superseded).toEqual([cto!.id]);
  expect(report.conflictUncertaintyIds).toEqual([]);
  const steps = await f.db.supersession.findMany({ where: { olderId: cto!.id } });
  expect(steps).toEqual([expect.objectContaining({ newerId: vp!.id, validTo: MAR, previousValidTo: null, undoneAt: null })]);
});

test("with an event time the old value ends when the change happened, not when it was said", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen, CTO at Acme.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm Alice Chen, CTO at Acme")] });
  const t2 = await addTurn(f, { content: "Since February I'm VP.", at: MAR, scope: ALICE });
  const feb = "2025-02-01T00:00:00.000Z";
  await ingest(f, t2, { attributes: [attribute("Alice Chen", "role", "VP", "Since February I'm VP", { valid_from: feb })] });

  const [cto, vp] = await rolesOfAlice();
  expect(cto).toMatchObject({ value: "CTO", validTo: new Date(feb), supersededById: vp!.id });
  expect(vp).toMatchObject({ value: "VP", validFrom: new Date(feb), validTo: null });
  const assertion = await f.db.assertion.findUniqueOrThrow({ where: { id: vp!.assertionId } });
  expect(assertion.eventTime).toEqual(new Date(feb));
});

test("a value learned late takes its place inside the chain (CTO → VP → CEO)", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen, CTO at Acme.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm Alice Chen, CTO at Acme")] });
  const apr = "2025-04-01T00:00:00.000Z";
  const t2 = await addTurn(f, { content: "Since April I'm CEO.", at: new Date("2025-04-02T00:00:00Z"), scope: ALICE });
  await ingest(f, t2, { attributes: [attribute("Alice Chen", "role", "CEO", "Since April I'm CEO", { valid_from: apr })] });
  const feb = "2025-02-01T00:00:00.000Z";
  const t3 = await addTurn(f, { content: "Before that I was VP, from February.", at: new Date("2025-05-01T00:00:00Z"), scope: ALICE });
  await ingest(f, t3, { attributes: [attribute("Alice Chen", "role", "VP", "I was VP, from February", { valid_from: feb })] });

  const [cto, vp, ceo] = await rolesOfAlice();
  expect([cto!.value, vp!.value, ceo!.value]).toEqual(["CTO", "VP", "CEO"]);
  expect(cto).toMatchObject({ validTo: new Date(feb), supersededById: vp!.id });
  expect(vp).toMatchObject({ validFrom: new Date(feb), validTo: new Date(apr), supersededById: ceo!.id });
  expect(ceo).toMatchObject({ validTo: null, supersededById: null });
  // The step CTO → CEO is kept, marked undone, so system-time reads still know it.
  const steps = await f.db.supersession.findMany({ where: { olderId: cto!.id }, orderBy: { createdAt: "asc" } });
  expect(steps.map((s) => [s.newerId, s.undoneAt === null])).toEqual([
    [ceo!.id, false],
    [vp!.id, true],
  ]);
});

test("Berlin → Lisbon: lives_in is single-valued, the relation to Berlin is closed", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen. I live in Berlin.", at: JAN, scope: ALICE });
  await ingest(f, t1, { relations: [relation("Alice Chen", "lives_in", "Berlin", "location", "I live in Berlin")] });
  const t2 = await addTurn(f, { content: "I moved to Lisbon.", at: MAR, scope: ALICE });
  await ingest(f, t2, { relations: [relation("Alice Chen", "lives in", "Lisbon", "location", "I moved to Lisbon")] });

  const rels = await f.db.relation.findMany({ where: { contextId: f.contextId, predicate: "lives_in" }, orderBy: { validFrom: "asc" } });
  const names = await f.db.entity.findMany({ where: { id: { in: rels.map((r) => r.objectId) } } });
  const nameOf = (id: string) => names.find((e) => e.id === id)!.name;
  expect(rels.map((r) => nameOf(r.objectId))).toEqual(["Berlin", "Lisbon"]);
  expect(rels[0]).toMatchObject({ validTo: MAR, supersededById: rels[1]!.id });
  expect(rels[1]).toMatchObject({ validTo: null, supersededById: null });
});

test("Berlin → Lisbon with a move date: Berlin ends on the move date", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen. I live in Berlin.", at: JAN, scope: ALICE });
  await ingest(f, t1, { relations: [relation("Alice Chen", "lives_in", "Berlin", "location", "I live in Berlin")] });
  const may = "2025-05-15T00:00:00.000Z";
  const t2 = await addTurn(f, { content: "Since mid-May I live in Lisbon.", at: new Date("2025-06-01T00:00:00Z"), scope: ALICE });
  await ingest(f, t2, {
    relations: [relation("Alice Chen", "lives_in", "Lisbon", "location", "Since mid-May I live in Lisbon", { valid_from: may })],
  });

  const [berlin, lisbon] = await f.db.relation.findMany({
    where: { contextId: f.contextId, predicate: "lives_in" },
    orderBy: { validFrom: "asc" },
  });
  expect(berlin).toMatchObject({ validTo: new Date(may), supersededById: lisbon!.id });
  expect(lisbon).toMatchObject({ validFrom: new Date(may), validTo: null });
});

test("multi-valued predicates accumulate", async () => {
  const t1 = await addTurn(f, { content: "Alice Chen likes climbing.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "likes", "climbing", "Alice Chen likes climbing")] });
  const t2 = await addTurn(f, { content: "Alice Chen likes jazz.", at: MAR, scope: ALICE });
  const report = await ingest(f, t2, { attributes: [attribute("Alice Chen", "likes", "jazz", "Alice Chen likes jazz")] });

  const likes = await f.db.attribute.findMany({ where: { contextId: f.contextId, key: "likes" } });
  expect(likes.map((l) => [l.value, l.validTo, l.supersededById])).toEqual(
    expect.arrayContaining([
      ["climbing", null, null],
      ["jazz", null, null],
    ]),
  );
  expect(report.superseded).toEqual([]);
});

test("a value in another scope never closes this one (scope rule)", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen, CTO at Acme.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm Alice Chen, CTO at Acme")] });
  const bob = await addTurn(f, { content: "Alice Chen is our CEO.", at: MAR, scope: ["org=acme", "user=bob"] });
  const report = await ingest(f, bob, { attributes: [attribute("Alice Chen", "role", "CEO", "Alice Chen is our CEO")] });

  const roles = await rolesOfAlice();
  expect(roles.map((r) => [r.value, r.supersededById])).toEqual([
    ["CTO", null],
    ["CEO", null],
  ]);
  expect(report).toMatchObject({ superseded: [], conflictUncertaintyIds: [] });
});

test("applying truth maintenance twice for one commit changes nothing the second time", async () => {
  const t1 = await addTurn(f, { content: "I'm Alice Chen, CTO at Acme.", at: JAN, scope: ALICE });
  await ingest(f, t1, { attributes: [attribute("Alice Chen", "role", "CTO", "I'm Alice Chen, CTO at Acme")] });
  const t2 = await addTurn(f, { content: "I'm CEO now.", at: MAR, scope: ALICE });
  await ingest(f, t2, { attributes: [attribute("Alice Chen", "role", "CEO", "I'm CEO now")] });
  const before = await rolesOfAlice();

  const again = await maintainSubject(f, t2);

  expect(again.superseded).toEqual([]);
  expect(await rolesOfAlice()).toEqual(before);
  expect(await f.db.supersession.count({ where: { contextId: f.contextId } })).toBe(1);
});

test("at density a new value closes only its own entity's single-valued key: nothing collateral (issue 43)", async () => {
  // A week of dense facts about two people, a place of the same name as one of them and a pet, as a model writes them.
  const t1 = await addTurn(f, {
    content:
      "Alice Chen lives in Berlin. Bob Stone lives in Berlin. Alice Chen likes climbing. Alice Chen is CTO. Jordan is the Hashemite Kingdom.",
    at: JAN,
    scope: ALICE,
  });
  await ingest(f, t1, {
    relations: [
      relation("Alice Chen", "lives_in", "Berlin", "location", "Alice Chen lives in Berlin"),
      relation("Bob Stone", "lives_in", "Berlin", "location", "Bob Stone lives in Berlin"),
    ],
    attributes: [
      attribute("Alice Chen", "likes", "climbing", "Alice Chen likes climbing"),
      attribute("Alice Chen", "role", "CTO", "Alice Chen is CTO"),
      attribute("Jordan", "title", "Hashemite Kingdom", "Jordan is the Hashemite Kingdom", {
        entity_type: "location",
        memory_category: "knowledge",
      }),
    ],
  });
  // One later turn: Alice moves, takes up jazz, Bob's role is said, and Jordan the person (not the place) gets a title.
  const t2 = await addTurn(f, {
    content: "Alice Chen moved to Lisbon. Alice Chen likes jazz. Bob Stone is CFO. Jordan is a doctor.",
    at: MAR,
    scope: ALICE,
  });
  const report = await ingest(f, t2, {
    relations: [relation("Alice Chen", "lives_in", "Lisbon", "location", "Alice Chen moved to Lisbon")],
    attributes: [
      attribute("Alice Chen", "likes", "jazz", "Alice Chen likes jazz"),
      attribute("Bob Stone", "role", "CFO", "Bob Stone is CFO"),
      attribute("Jordan", "title", "doctor", "Jordan is a doctor"),
    ],
  });

  const berlin = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, name: "Berlin" } });
  const livesIn = await f.db.relation.findMany({ where: { contextId: f.contextId, predicate: "lives_in", objectId: berlin.id } });
  const open = await f.db.attribute.findMany({ where: { contextId: f.contextId, validTo: null }, select: { value: true } });
  // Alice's Berlin is the one fact closed; Bob's Berlin, her likes, her role, Bob's new role and Jordan the place's
  // title (a single-valued key of another entity of the same name) stay.
  expect(report.superseded).toHaveLength(1);
  expect(livesIn.map((r) => r.validTo === null)).toEqual(expect.arrayContaining([true, false]));
  expect(livesIn.find((r) => r.validTo !== null)!.supersededById).not.toBeNull();
  expect(open.map((a) => a.value).sort()).toEqual(["CFO", "CTO", "Hashemite Kingdom", "climbing", "doctor", "jazz"]);
  expect(await f.db.supersession.count({ where: { contextId: f.contextId } })).toBe(1);
});
