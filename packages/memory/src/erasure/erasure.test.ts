// Erasure in the memory package: rows deleted (not marked), what the erased input had superseded reopened, the
// receipt's hash as documented, the cap making a session's erasure resumable, and unknown ids refused whole.
import { createHash, randomUUID } from "node:crypto";
import { pipelineRecords as records } from "@recall/pipeline";
import { eraseInputs, hashLines, readErasure, UnknownErasureInputsError } from "./erasure";
import { addDocument, addTurn, attribute, eachTestInNewContext, ingest, relation, type MemoryFixture } from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ALICE = ["org=acme", "user=alice"];
const day = (d: number) => new Date(Date.UTC(2025, 0, d, 9));
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

async function sayRole(role: string, at: Date, sessionId?: string) {
  const text = `I'm ${role} now.`;
  const turn = await addTurn(f, { content: text, at, scope: ALICE, sessionId });
  await ingest(f, turn, { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  return turn;
}

test("the events that name what an erasure deleted go with it: the facts it closed and opened, its turn, its session", async () => {
  await f.db.webhook.create({
    data: { contextId: f.contextId, url: "https://hooks.example/recall", events: ["fact.superseded"], secret: "whsec_test" },
  });
  await sayRole("CTO", day(1));
  const ceo = await sayRole("CEO", day(5));
  const [superseded] = await f.db.webhookEvent.findMany({ where: { contextId: f.contextId, type: "fact.superseded" } });
  const newer = await f.db.attribute.findFirstOrThrow({ where: { contextId: f.contextId, value: "CEO" } });
  expect(superseded?.data).toMatchObject({ superseded_by: newer.id });

  const receipt = await eraseInputs(f.db, { contextId: f.contextId, turnIds: [ceo.id] }, { records });

  expect(await f.db.webhookEvent.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(receipt.counts).toMatchObject({ webhook_events: 1 });
});

test("erasing the newest value deletes its rows and reopens the value it had superseded; the hash is over the erased content", async () => {
  await sayRole("CTO", day(1));
  const ceo = await sayRole("CEO", day(5));

  const receipt = await eraseInputs(f.db, { contextId: f.contextId, turnIds: [ceo.id] }, { records });

  const roles = await f.db.attribute.findMany({ where: { contextId: f.contextId, key: "role" } });
  expect(roles.map((r) => [r.value, r.validTo, r.supersededById])).toEqual([["CTO", null, null]]);
  expect(await f.db.supersession.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(await f.db.assertion.count({ where: { turnId: ceo.id } })).toBe(0);
  expect(await f.db.knowledgeCandidate.count({ where: { subjectId: ceo.id } })).toBe(0);
  expect(await f.db.workItem.count({ where: { subjectId: ceo.id } })).toBe(0);
  expect(await f.db.turn.count({ where: { id: ceo.id } })).toBe(0);
  expect(receipt.counts).toMatchObject({ turns: 1, attributes: 1, assertions: 1, supersessions: 1, entities: 0 });
  // Its session had no other turn: it goes too, and is part of the hash.
  expect(receipt.erased.session).toEqual([ceo.sessionId]);
  expect(receipt.hash).toBe(hashLines([`turn ${ceo.id} ${sha("I'm CEO now.")}`, `session ${ceo.sessionId} ${sha("{}")}`]));
  expect(await readErasure(f.db, f.contextId, receipt.erasureId)).toEqual(receipt);
  expect(await f.db.erasedInput.findUniqueOrThrow({ where: { inputId: ceo.id } })).toMatchObject({ kind: "turn" });
});

test("an entity only the erased document named is removed; one another input names stays", async () => {
  const text = "Alice Chen lives in Berlin.";
  const doc = await addDocument(f, { text, at: day(1), scope: ALICE });
  await ingest(f, doc, { relations: [relation("Alice Chen", "lives_in", "Berlin", "location", "Alice Chen lives in Berlin")] });
  const kept = await addTurn(f, { content: "Alice Chen is CTO now.", at: day(2), scope: ALICE });
  await ingest(f, kept, { attributes: [attribute("Alice Chen", "role", "CTO", "Alice Chen is CTO now")] });

  const receipt = await eraseInputs(f.db, { contextId: f.contextId, documentIds: [doc.id] }, { records });

  const names = (await f.db.entity.findMany({ where: { contextId: f.contextId } })).map((e) => e.name);
  expect(names).toEqual(["Alice Chen"]);
  expect(receipt.counts).toMatchObject({ documents: 1, relations: 1, entities: 1 });
  expect(await f.db.relation.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("a name only the erased input stated leaves the entity another input supports, and that input's copies of it", async () => {
  const intro = await addTurn(f, { content: "I'm Quorvane Ostrel, CTO at Acme.", at: day(1), scope: ALICE });
  await ingest(f, intro, { attributes: [attribute("Quorvane Ostrel", "role", "CTO", "I'm Quorvane Ostrel, CTO at Acme")] });
  // The next turn's extraction named its speaker from the first: the name is a copy there.
  const kept = await addTurn(f, { content: "I'm CEO now. My boat is red.", at: day(2), scope: ALICE });
  await ingest(f, kept, {
    attributes: [
      attribute("Quorvane Ostrel", "role", "CEO", "I'm CEO now"),
      attribute("Quorvane Ostrel's boat", "colour", "red", "My boat is red", { entity_type: "object" }),
    ],
  });

  const receipt = await eraseInputs(f.db, { contextId: f.contextId, turnIds: [intro.id] }, { records });

  expect(receipt.counts).toMatchObject({ entities_renamed: 1, copies_rewritten: expect.any(Number) });
  const entity = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, type: "person" } });
  expect(entity).toMatchObject({ name: "unnamed person", aliases: [], identityKey: `unnamed ${entity.id}` });
  const boat = await f.db.entity.findFirstOrThrow({ where: { contextId: f.contextId, type: "object" } });
  expect(boat).toMatchObject({ name: "unnamed person's boat", identityKey: "unnamed person boat" });
  const candidates = await f.db.knowledgeCandidate.findMany({ where: { subjectId: kept.id } });
  expect(candidates.length).toBeGreaterThan(0);
  expect(JSON.stringify(candidates.map((c) => c.payload))).not.toMatch(/quorvane/i);
  expect(JSON.stringify(candidates.map((c) => c.payload))).toContain("unnamed person");
  const role = await f.db.attribute.findFirstOrThrow({ where: { contextId: f.contextId, key: "role" } });
  expect({ entity: role.entityId, value: role.value }).toEqual({ entity: entity.id, value: "CEO" });
});

test("a session longer than the cap is erased in steps: incomplete, then the rest with the session", async () => {
  const first = await sayRole("CTO", day(1));
  const second = await sayRole("VP", day(2), first.sessionId);
  const third = await sayRole("CEO", day(3), first.sessionId);
  const request = { contextId: f.contextId, sessionIds: [first.sessionId] };

  const partial = await eraseInputs(f.db, request, { records, cap: 2 });
  expect(partial).toMatchObject({ complete: false, erased: { turn: [first.id, second.id], session: [] } });
  expect(await f.db.session.count({ where: { id: first.sessionId } })).toBe(1);

  const rest = await eraseInputs(f.db, request, { records, cap: 2 });
  expect(rest).toMatchObject({ complete: true, erased: { turn: [third.id], session: [first.sessionId] } });
  expect(await f.db.session.count({ where: { id: first.sessionId } })).toBe(0);
  expect(await f.db.attribute.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(await f.db.entity.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("an unknown id refuses the whole erasure; an erased one is reported as already erased", async () => {
  const turn = await sayRole("CTO", day(1));
  const unknown = randomUUID();
  const refused = eraseInputs(f.db, { contextId: f.contextId, turnIds: [turn.id], documentIds: [unknown] }, { records });
  await expect(refused).rejects.toBeInstanceOf(UnknownErasureInputsError);
  await expect(refused).rejects.toMatchObject({ unknown: [{ field: "document_ids", id: unknown }] });
  expect(await f.db.turn.count({ where: { id: turn.id } })).toBe(1);

  await eraseInputs(f.db, { contextId: f.contextId, turnIds: [turn.id] }, { records });
  const again = await eraseInputs(f.db, { contextId: f.contextId, turnIds: [turn.id] }, { records });
  expect(again).toMatchObject({ erased: { turn: [] }, alreadyErased: { turn: [turn.id] }, hash: hashLines([]) });
});
