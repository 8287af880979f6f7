// Rekeying entities stored before look-alike names were resolved (issue #42), on real Postgres.
import { rekeyEntities } from "./entity-rekey";
import { eachTestInNewContext, newContext, type MemoryFixture } from "../testing/memory-fixture";
import { scopeSetIdOf } from "../core/scope-sets";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

/** An entity row as the old identityKey stored it. */
const stored = async (contextId: string, name: string, identityKey: string, type = "person") =>
  f.db.entity.create({
    data: { contextId, name, identityKey, type, memoryCategory: "identity", scopeSetId: await scopeSetIdOf(f.db, contextId, ["org=acme"]) },
  });

test("old keys are rewritten; a twin of a live entity keeps its key and is flagged once; a second run changes nothing", async () => {
  const alice = await stored(f.contextId, "Alice", "alice");
  const zwj = await stored(f.contextId, "Al\u200dice", "al ice");
  const greek = await stored(f.contextId, "\u0391lice", "\u03b1lice");
  const zoe = await stored(f.contextId, "Zo\u200b\u00eb", "zo ë");
  const bob = await stored(f.contextId, "\u202eboB", "bob");
  const erased = await stored(f.contextId, "unnamed größe", "");
  await f.db.entity.update({ where: { id: erased.id }, data: { identityKey: `unnamed ${erased.id}` } });

  expect(await rekeyEntities(f.db, { contextId: f.contextId })).toEqual({ rekeyed: 2, flagged: 2 });

  const byId = async (id: string) => f.db.entity.findUniqueOrThrow({ where: { id } });
  expect(await byId(alice.id)).toMatchObject({ name: "Alice", identityKey: "alice" });
  expect(await byId(zoe.id)).toMatchObject({ name: "Zoë", identityKey: "zoë" });
  expect(await byId(bob.id)).toMatchObject({ name: "Bob", identityKey: "bob" });
  expect(await byId(erased.id)).toMatchObject({ identityKey: `unnamed ${erased.id}` });
  // The twins keep the keys they had (no mention reaches them now), shown without controls, each with its flag.
  expect(await byId(zwj.id)).toMatchObject({ name: "Alice", identityKey: "al ice" });
  expect(await byId(greek.id)).toMatchObject({ name: "\u0391lice", identityKey: "\u03b1lice" });
  const flags = await f.db.uncertainty.findMany({ where: { contextId: f.contextId }, orderBy: { createdAt: "asc" } });
  const acme = await scopeSetIdOf(f.db, f.contextId, ["org=acme"]);
  expect(flags.map((u) => [u.entityId, u.scopeSetId === acme])).toEqual([
    [zwj.id, true],
    [greek.id, true],
  ]);
  expect(flags[0]!.reason).toMatch(new RegExp(`looks like Alice \\(person, ${alice.id}\\)`));

  expect(await rekeyEntities(f.db, { contextId: f.contextId })).toEqual({ rekeyed: 0, flagged: 0 });
  expect(await f.db.uncertainty.count({ where: { contextId: f.contextId } })).toBe(2);
});

test("other contexts are left alone when one is named", async () => {
  const other = await newContext(f.db);
  const elsewhere = await stored(other.contextId, "Al\u200dice", "al ice");
  expect(await rekeyEntities(f.db, { contextId: f.contextId })).toEqual({ rekeyed: 0, flagged: 0 });
  expect(await f.db.entity.findUniqueOrThrow({ where: { id: elsewhere.id } })).toMatchObject({ identityKey: "al ice" });
});
