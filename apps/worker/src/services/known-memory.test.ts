// What the extractor is told as memory grows past what a prompt lists (issue 43): the entities a text names come
// first, by identity key, however old; the list stays bounded; finding the names is linear in the text.
import { createDb, type Db } from "@recall/db";
import { knownEntitiesBlock } from "@recall/extraction";
import { identityKey } from "@recall/memory";
import { createTestDatabase, type TestDatabase } from "@recall/test-support";
import { loadKnownMemory, nameKeysIn } from "./known-memory";

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ databaseUrl: database.url, poolMax: 2, unscoped: "bypass" });
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

test("a pet named long ago, behind 1,000 newer entities, is offered first when the text names it; the list stays bounded", async () => {
  const contextId = (await db.context.create({ data: { name: "known-memory" } })).id;
  const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1) + minutes * 60_000);
  const entity = (name: string, type: string, minutes: number) => ({
    ...{ contextId, name, identityKey: identityKey(name), type, memoryCategory: "identity" as const, createdAt: at(minutes) },
  });
  await db.entity.createMany({
    data: [
      entity("Luna", "pet", 0),
      entity("Dr. Maya Ortiz", "person", 1),
      ...Array.from({ length: 1_000 }, (_, i) => entity(`Person ${i}`, "person", 10 + i)),
    ],
  });

  const known = await loadKnownMemory(db, contextId, ["Took LUNA's leash to Dr. Maya Ortiz's clinic today."]);

  expect(known.knownEntities).toHaveLength(500);
  expect(known.knownEntities.slice(0, 2).map((e) => [e.name, e.type])).toEqual([
    ["Dr. Maya Ortiz", "person"],
    ["Luna", "pet"],
  ]);
  // Then the newest, as before.
  expect(known.knownEntities[2]!.name).toBe("Person 999");
  const block = knownEntitiesBlock(known.knownEntities);
  expect(block.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(100);
  expect(block).toContain("- Luna (pet)");
  // With no text, only the newest: Luna is not among them.
  const newest = await loadKnownMemory(db, contextId);
  expect(newest.knownEntities.map((e) => e.name)).not.toContain("Luna");
});

test("the names looked up are bounded and found in time linear in the text, however hostile", () => {
  const words = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(" ");
  const noBreak = "x".repeat(2_000_000);
  const started = performance.now();
  const keys = nameKeysIn([words, noBreak]);
  expect(keys.length).toBe(5_000);
  expect(nameKeysIn([noBreak])).toEqual([]);
  expect(nameKeysIn(["Took Luna's leash"])).toEqual(expect.arrayContaining(["luna", "took luna", "luna leash"]));
  // Not a timing assertion on a shared machine: a bound that only a quadratic scan would cross.
  expect(performance.now() - started).toBeLessThan(20_000);
});
