import { fuseRankings } from "./rank-fusion";

const list = (name: string, keys: string[]) => ({ name, items: keys.map((key) => ({ key, item: { key } })) });

test("an item two retrievers agree on outranks the top of either list alone", () => {
  const fused = fuseRankings([list("full_text", ["a", "b", "c"]), list("vector", ["b", "d"])]);
  expect(fused.map((f) => f.key)).toEqual(["b", "a", "d", "c"]);
  expect(fused[0]).toMatchObject({ key: "b", ranks: { full_text: 2, vector: 1 } });
  expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
});

test("ties between lists are broken by the caller's order", () => {
  const fused = fuseRankings([list("turns", ["t1"]), list("facts", ["f1"])], (a, b) => (a.key < b.key ? -1 : 1));
  expect(fused.map((f) => f.key)).toEqual(["f1", "t1"]);
});
