// Entity resolution on real Postgres: identity key and type guard, the topic wildcard,
// contested names with and without a disambiguator, and where an entity is shown.
import type { EntityDisambiguator, DisambiguationRequest } from "./entity-disambiguation";
import {
  addDocument,
  addTurn,
  commitSubject,
  ingest,
  stageCandidates,
  eachTestInNewContext,
  validateStaged,
  type MemoryFixture,
  type TestSubject,
} from "../testing/memory-fixture";
import { scopeOf } from "../core/scope-sets";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const AT = new Date("2025-01-10T09:00:00Z");

function fact(entity: string, type: string, key: string, value: string, quote: string) {
  return { entity, entity_type: type, key, value, memory_category: "knowledge" as const, evidence: { quote }, confidence: 0.9 };
}

async function entitiesNamed(key: string) {
  return f.db.entity.findMany({ where: { contextId: f.contextId, identityKey: key }, orderBy: { createdAt: "asc" } });
}

async function knownJordans() {
  const person = await addTurn(f, { content: "My friend Jordan loves chess.", at: AT });
  await ingest(f, person, { attributes: [fact("Jordan", "person", "likes", "chess", "Jordan loves chess")] });
  const country = await addDocument(f, { text: "Jordan borders Israel.", at: AT });
  await ingest(f, country, { attributes: [fact("Jordan", "country", "borders", "Israel", "Jordan borders Israel")] });
  return entitiesNamed("jordan");
}

async function stagedTopicJordan(): Promise<TestSubject> {
  const turn = await addTurn(f, { content: "Jordan is great.", at: AT });
  await stageCandidates(f, turn, { attributes: [fact("Jordan", "topic", "opinion", "great", "Jordan is great")] });
  await validateStaged(f, turn);
  return turn;
}

test("Apple the company and apple the fruit stay two entities, each with its own facts", async () => {
  const company = await addDocument(f, { text: "Apple makes phones.", at: AT });
  await ingest(f, company, { attributes: [fact("Apple", "organization", "makes", "phones", "Apple makes phones")] });
  const fruit = await addDocument(f, { text: "An apple a day keeps the doctor away.", at: AT });
  await ingest(f, fruit, {
    attributes: [fact("apple", "food", "benefit", "keeps the doctor away", "An apple a day keeps the doctor away")],
  });

  const apples = await entitiesNamed("apple");
  expect(apples.map((e) => e.type)).toEqual(["organization", "food"]);
  const attrs = await f.db.attribute.findMany({ where: { contextId: f.contextId } });
  expect(attrs.find((a) => a.key === "makes")!.entityId).toBe(apples[0]!.id);
  expect(attrs.find((a) => a.key === "benefit")!.entityId).toBe(apples[1]!.id);
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(0);
});

test('"Jordan" the person and "Jordan" the country are not merged', async () => {
  const jordans = await knownJordans();
  expect(jordans.map((e) => e.type)).toEqual(["person", "location"]);
});

test("a topic upgrades to the specific type when the name is used again", async () => {
  const first = await addDocument(f, { text: "Acme was mentioned.", at: AT });
  await ingest(f, first, { entities: [{ name: "Acme", type: "topic", memory_category: "knowledge", aliases: [], confidence: 0.9 }] });
  const second = await addDocument(f, { text: "Acme hires engineers.", at: AT });
  await ingest(f, second, { attributes: [fact("Acme", "company", "hires", "engineers", "Acme hires engineers")] });

  const [acme, ...others] = await entitiesNamed("acme");
  expect(others).toEqual([]);
  expect(acme!.type).toBe("organization");
  expect(await f.db.entityMention.count({ where: { entityId: acme!.id } })).toBe(2);
});

test("a name that fits two entities, with no disambiguator, becomes a new entity and an uncertainty", async () => {
  const known = await knownJordans();
  const turn = await stagedTopicJordan();
  const summary = await commitSubject(f, turn);

  const jordans = await entitiesNamed("jordan");
  expect(jordans).toHaveLength(3);
  const uncertainty = await f.db.uncertainty.findFirstOrThrow({ where: { contextId: f.contextId } });
  expect(summary.uncertaintyIds).toEqual([uncertainty.id]);
  expect(uncertainty).toMatchObject({ entityId: jordans[2]!.id, turnId: turn.id, about: 'which "Jordan" is meant' });
  for (const e of known) expect(uncertainty.reason).toContain(e.id);
});

test("a disambiguator settles the contested name; its answer is checkpointed on the commit work item", async () => {
  const [person] = await knownJordans();
  const requests: DisambiguationRequest[] = [];
  const disambiguator: EntityDisambiguator = {
    async decide(request) {
      requests.push(request);
      return { entityId: request.options.find((o) => o.type === "person")!.id, reason: "the chess friend", tokensUsed: 42 };
    },
  };
  const turn = await stagedTopicJordan();
  const summary = await commitSubject(f, turn, { disambiguator });

  expect(summary.tokensUsed).toBe(42);
  expect(requests).toHaveLength(1);
  expect(requests[0]).toMatchObject({ name: "Jordan", reason: "ambiguous", quote: "Jordan is great" });
  expect(requests[0]!.options.find((o) => o.id === person!.id)!.facts).toEqual(["likes = chess"]);
  expect(await entitiesNamed("jordan")).toHaveLength(2);
  const opinion = await f.db.attribute.findFirstOrThrow({ where: { contextId: f.contextId, key: "opinion" } });
  expect(opinion.entityId).toBe(person!.id);
  const item = await f.db.workItem.findFirstOrThrow({ where: { subjectId: turn.id, queue: "commit_artifacts" } });
  expect(item.payload).toEqual({ disambiguations: { "jordan|topic": { entityId: person!.id, reason: "the chess friend" } } });
});

test("a disambiguator answering 'none of these' makes a new entity, without an uncertainty", async () => {
  const company = await addDocument(f, { text: "Apple makes phones.", at: AT });
  await ingest(f, company, { attributes: [fact("Apple", "organization", "makes", "phones", "Apple makes phones")] });
  const fruit = await addDocument(f, { text: "An apple a day keeps the doctor away.", at: AT });
  await stageCandidates(f, fruit, { attributes: [fact("apple", "food", "benefit", "health", "An apple a day")] });
  await validateStaged(f, fruit);
  const asked: string[] = [];
  const summary = await commitSubject(f, fruit, {
    disambiguator: { decide: async (r) => (asked.push(r.reason), { entityId: null, reason: "a fruit is not a company" }) },
  });

  expect(asked).toEqual(["type_incompatible"]);
  expect((await entitiesNamed("apple")).map((e) => e.type)).toEqual(["organization", "food"]);
  expect(summary.uncertaintyIds).toEqual([]);
});

test("a failing disambiguator does not block the commit: the safe rule applies and the failure is reported", async () => {
  await knownJordans();
  const turn = await stagedTopicJordan();
  const summary = await commitSubject(f, turn, {
    disambiguator: {
      decide: async () => {
        throw new Error("provider unavailable");
      },
    },
  });

  expect(summary.disambiguationFailures).toEqual([{ name: "Jordan", message: "provider unavailable" }]);
  expect(await entitiesNamed("jordan")).toHaveLength(3);
});

test("an entity is shown in the broader scope when a broader source names it, never in another user's", async () => {
  const alice = await addTurn(f, { content: "Jordan loves chess.", at: AT, scope: ["org=acme", "user=alice"] });
  await ingest(f, alice, { attributes: [fact("Jordan", "person", "likes", "chess", "Jordan loves chess")] });
  const bob = await addTurn(f, { content: "Jordan plays go.", at: AT, scope: ["org=acme", "user=bob"] });
  await ingest(f, bob, { attributes: [fact("Jordan", "person", "likes", "go", "Jordan plays go")] });
  expect(await Promise.all((await entitiesNamed("jordan")).map((e) => scopeOf(f.db, e.scopeSetId)))).toEqual([["org=acme", "user=alice"]]);

  const org = await addDocument(f, { text: "Jordan leads the chess club.", at: AT, scope: ["org=acme"] });
  await ingest(f, org, { attributes: [fact("Jordan", "person", "leads", "the chess club", "Jordan leads the chess club")] });
  expect(await Promise.all((await entitiesNamed("jordan")).map((e) => scopeOf(f.db, e.scopeSetId)))).toEqual([["org=acme"]]);
});

test("look-alike spellings (a zero-width joiner, a Greek Alpha, a Cyrillic es, a right-to-left override) resolve to one entity", async () => {
  const spellings = ["Alice", "Al\u200dice", "\u0391lice", "Ali\u0441e", "\u202eecilA"];
  for (const [i, name] of spellings.entries()) {
    const turn = await addTurn(f, { content: `${name} is the CTO (${i}).`, at: AT });
    await ingest(f, turn, { attributes: [fact(name, "person", "role", "CTO", `${name} is the CTO`)] });
  }

  const entities = await f.db.entity.findMany({ where: { contextId: f.contextId } });
  expect(entities.map((e) => [e.name, e.identityKey])).toEqual([["Alice", "alice"]]);
  expect(await f.db.attribute.count({ where: { contextId: f.contextId, entityId: entities[0]!.id } })).toBe(5);
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("a name wholly in another script that looks like a known one is its own entity, flagged as an uncertainty", async () => {
  const latin = await addTurn(f, { content: "Coco likes tea.", at: AT });
  await ingest(f, latin, { attributes: [fact("Coco", "person", "likes", "tea", "Coco likes tea")] });
  const cyrillic = "\u0421\u043e\u0441\u043e"; // Сосо: every letter Cyrillic
  const turn = await addTurn(f, { content: `${cyrillic} likes coffee.`, at: AT });
  await ingest(f, turn, { attributes: [fact(cyrillic, "person", "likes", "coffee", `${cyrillic} likes coffee`)] });

  const [coco] = await entitiesNamed("coco");
  const [lookalike] = await entitiesNamed("сосо");
  expect(lookalike!.id).not.toBe(coco!.id);
  const flagged = await f.db.uncertainty.findMany({ where: { contextId: f.contextId } });
  expect(flagged).toEqual([expect.objectContaining({ entityId: lookalike!.id, about: `whether "${cyrillic}" is "Coco"` })]);
  expect(flagged[0]!.reason).toMatch(/written in another script but looks like Coco/);
});

test("a real name in another script, like no known one, is its own entity with no flag", async () => {
  const turn = await addTurn(f, { content: "Αλίκη likes tea.", at: AT });
  await ingest(f, turn, { attributes: [fact("Αλίκη", "person", "likes", "tea", "Αλίκη likes tea")] });
  expect((await entitiesNamed("αλίκη")).map((e) => e.name)).toEqual(["Αλίκη"]);
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("a pet named in twelve sessions, however each window spells or types it, is one entity (issue 43)", async () => {
  const spellings = ["Luna", "luna", "LUNA", "Luna"];
  for (let session = 0; session < 12; session += 1) {
    const name = spellings[session % spellings.length]!;
    // A model reading one window now and then knows only that a name was mentioned: a topic.
    const type = session % 5 === 4 ? "topic" : "pet";
    const at = new Date(AT.getTime() + session * 7 * 86_400_000);
    const turn = await addTurn(f, { content: `Walked ${name} by the river today, session ${session}.`, at });
    await ingest(f, turn, { attributes: [fact(name, type, "did", `walk by the river ${session}`, `Walked ${name} by the river today`)] });
  }

  const [luna, ...others] = await entitiesNamed("luna");
  expect(others).toEqual([]);
  expect(luna!.type).toBe("pet");
  expect(await f.db.entityMention.count({ where: { entityId: luna!.id } })).toBe(12);
  expect(await f.db.attribute.count({ where: { entityId: luna!.id } })).toBe(12);
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(0);
});
