// A turn's key holds the facts read from it (factKey, search-ranked.ts): a turn whose fact
// matches the query is found and ranked by it even when its own words miss the query, above a
// turn that shares only a weak word; with the weight at 0 the ranking is the turns' own.
import { attribute, eachTestInNewContext, addTurn, ingest, type MemoryFixture } from "../../testing/memory-fixture";
import { searchMemory } from "./search-reader";
import type { RankingWeights } from "./search-weights";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const AT = new Date("2026-03-01T10:00:00Z");

async function turnsFor(query: string, ranking: Partial<RankingWeights>): Promise<string[]> {
  const { results } = await searchMemory(f.db, {
    contextId: f.contextId,
    scope: [],
    query,
    limit: 10,
    kinds: ["turn"],
    match: "any",
    ranking,
  });
  return results.map((r) => r.id);
}

async function adoptionTurns() {
  const keyed = await addTurn(f, { content: "The papers finally came through yesterday!", at: AT });
  await ingest(f, keyed, {
    attributes: [attribute("Caroline", "adoption_status", "approved by the adoption agency", "The papers finally came through yesterday")],
  });
  const session = { sessionId: keyed.sessionId };
  for (const content of ["Lunch was nice.", "We walked the dog.", "The weather turned."]) await addTurn(f, { content, at: AT, ...session });
  const weak = await addTurn(f, { content: "Is that the agency near the station?", at: AT, ...session });
  return { keyed: keyed.id, weak: weak.id };
}

test("a turn whose fact matches the query ranks above a turn sharing only one of its words", async () => {
  const { keyed, weak } = await adoptionTurns();
  const ranked = await turnsFor("Was Caroline's adoption approved by the agency?", { factKey: 1, factLift: 0 });
  expect(ranked.indexOf(keyed)).toBeGreaterThanOrEqual(0);
  expect(ranked.indexOf(keyed)).toBeLessThan(ranked.indexOf(weak));
});

test("with factKey at 0 a turn is found by its own words only", async () => {
  const { keyed, weak } = await adoptionTurns();
  const ranked = await turnsFor("Was the adoption approved by the agency?", { factKey: 0, factLift: 0, neighbour: 0, neighbour2: 0 });
  expect(ranked).toContain(weak);
  expect(ranked).not.toContain(keyed);
});

test("a query sharing nothing with the facts or the turns finds no turn", async () => {
  await adoptionTurns();
  expect(await turnsFor("volcano eruption", { factKey: 1 })).toEqual([]);
});

test("asked when, a turn whose matching fact began on another day than it was said states a time", async () => {
  const dated = await addTurn(f, { content: "We finally went to the pottery class together.", at: AT });
  const session = { sessionId: dated.sessionId };
  const undated = await addTurn(f, { content: "The pottery class is lovely, pottery calms me.", at: AT, ...session });
  const lastWeek = { valid_from: "2026-02-22T00:00:00Z" };
  await ingest(f, dated, { attributes: [attribute("Melanie", "did", "pottery class", "went to the pottery class", lastWeek)] });
  await ingest(f, undated, { attributes: [attribute("Melanie", "likes", "pottery class", "The pottery class is lovely")] });
  const query = "When did Melanie go to the pottery class?";
  const flat = { factKey: 0.01, factLift: 0, neighbour: 0, neighbour2: 0, session: 0 };
  expect((await turnsFor(query, { ...flat, statesTime: 0 }))[0]).toBe(undated.id);
  expect((await turnsFor(query, { ...flat, statesTime: 1 }))[0]).toBe(dated.id);
});

test("a fact the rules read does not key its turn: the rules read the turn's own words back", async () => {
  const { keyed } = await adoptionTurns();
  await f.db.$executeRaw`UPDATE assertions SET stage = 'heuristic' WHERE turn_id = ${keyed}::uuid`;
  const ranked = await turnsFor("Was Caroline's adoption approved by the agency?", {
    factKey: 1,
    factLift: 0,
    neighbour: 0,
    neighbour2: 0,
  });
  expect(ranked).not.toContain(keyed);
});
