import { ExtractionDiff, isEmptyDiff } from "./diff";

test("a diff with no items is empty, and defaults fill missing lists", () => {
  const diff = ExtractionDiff.parse({ entities: [{ name: "Alice", type: "person", memory_category: "identity" }] });
  expect(diff.attributes).toEqual([]);
  expect(isEmptyDiff(diff)).toBe(false);
  expect(isEmptyDiff(ExtractionDiff.parse({}))).toBe(true);
});
